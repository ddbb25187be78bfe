import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNotify, useTranslate } from 'react-admin';
import type { IamMeta } from '../dataProvider';
import { livesInDomain } from '../resources/permissions';
import { registry } from '../resources/registry';
import { companyLabel, placeOf } from '../session/place';
import { currentPathContext, getSession } from '../session/session';

/**
 * docs/CONSOLE.md, "Resources": every successful create says where it was created, "Created in
 * Globex › prod" (a company or a domain: "Created in Globex"). One place for every form: react-admin's
 * useCreate runs each create as a mutation keyed [resource, 'create', …], and this watches the query
 * client's mutations for their success. The company and domain are the ones the create was sent to
 * (its meta's, else the session's), named as the session names them when they are the current ones.
 */
export function CreatedNotice() {
  const queryClient = useQueryClient();
  const notify = useNotify();
  const translate = useTranslate();
  useEffect(
    () =>
      queryClient.getMutationCache().subscribe((event) => {
        if (event.type !== 'updated' || event.action.type !== 'success') return;
        const key = event.mutation.options.mutationKey;
        if (!Array.isArray(key) || key[1] !== 'create') return;
        const { resource, meta } = (event.mutation.state.variables ?? {}) as { resource?: string; meta?: IamMeta };
        const context = { ...currentPathContext(), ...meta?.pathContext };
        const session = getSession();
        const company = session.company?.id === context.companyId ? session.company : { id: context.companyId, name: context.companyId };
        let place = companyLabel(company);
        if (livesInDomain(registry.find((declaration) => declaration.name === resource)) && context.domainId) {
          const domain = session.domain?.id === context.domainId && session.company?.id === context.companyId ? session.domain : { id: context.domainId, name: context.domainId };
          place = placeOf(translate, company, domain);
        }
        notify('ra.notification.created', { type: 'info', messageArgs: { place, smart_count: 1 } });
      }),
    [queryClient, notify, translate],
  );
  return null;
}
