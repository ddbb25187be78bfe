import type { RaRecord, TranslateFunction } from 'react-admin';
import { currentPathContext, getSession, type Company } from '../../session/session';
import { apiState } from '../apis/formState';
import { applicationState } from '../applications/formState';
import { recordHref } from '../generic/recordLink';
import { groupFormState } from '../groups/formState';
import { userFormState } from '../users/formState';

/** What a record's screen is given besides the record when it is not the session's (a linked domain's company, a company's parent). */
export interface RecordPlace {
  company?: Company;
  parent?: Company;
}

type RecordScreen = (record: RaRecord, translate: TranslateFunction, place?: RecordPlace) => { to: string; state: unknown };

/** The record's shareable address in the current company and domain (generic/recordLink). */
const hrefOf = (type: string, record: RaRecord, companyId = currentPathContext().companyId) =>
  recordHref(type, record.id, { ...currentPathContext(), companyId }) ?? '/';

/**
 * How a record opens from a list row, the search, the Audit log, the History tabs and a record
 * address: its shareable address (docs/CONSOLE.md, "Routes") with the navigation state its screen
 * reads, built for the current company and domain (a linked record's screen is shown once they are
 * the record's). Records are looked for in the current company and domain only, so a record of
 * another domain, or one purged since, shows as its id alone. The routes are written out rather than
 * read from the declarations: this module loads lazily, and importing a declaration from here would
 * cost the first screen (../lazyParts).
 */
export const RECORD_SCREENS: Record<string, RecordScreen> = {
  companies: (company, translate, place) => ({
    to: hrefOf('companies', company),
    state: {
      mode: 'view',
      company,
      parent: place?.parent ?? getSession().company,
      header: translate('iam.companies.viewTitle'),
      url: '/onboarding-companies',
    },
  }),
  domains: (domain, _translate, place) => {
    const company = place?.company ?? getSession().company;
    return { to: hrefOf('domains', domain, company?.id), state: { company, domain, mode: 'view' } };
  },
  users: (user, translate) => ({ to: hrefOf('users', user), state: userFormState('view', translate, user) }),
  groups: (group) => ({ to: hrefOf('groups', group), state: groupFormState('view', group) }),
  applications: (application, translate) => ({
    to: hrefOf('applications', application),
    state: applicationState('view', translate('iam.applications.viewTitle'), application),
  }),
  apis: (api) => ({ to: hrefOf('apis', api), state: apiState('view', api) }),
  signInEvents: (event) => ({ to: hrefOf('signInEvents', event), state: { mode: 'view', record: event } }),
  auditEvents: (event) => ({ to: hrefOf('auditEvents', event), state: { mode: 'view', record: event } }),
};

/** The field that names a record of each type on screen (its display name), for the Audit log's Resource column. */
export const RECORD_NAMES: Readonly<Record<string, string>> = {
  companies: 'displayName',
  domains: 'name',
  users: 'displayName',
  groups: 'displayName',
  applications: 'client_name',
  apis: 'name',
};

/** Audited types whose records live in a domain: while there is none they are not looked for. */
const IN_DOMAIN = ['users', 'groups', 'applications', 'apis'];

/** The resource a record of this type is read from now, if any (the audit log names the types the API way). */
export function lookupResource(type: string): string | undefined {
  return RECORD_SCREENS[type] && (getSession().domain || !IN_DOMAIN.includes(type)) ? type : undefined;
}
