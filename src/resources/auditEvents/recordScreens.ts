import type { RaRecord, TranslateFunction } from 'react-admin';
import { getSession } from '../../session/session';
import { apiState } from '../apis/formState';
import { applicationState } from '../applications/formState';
import { groupFormState } from '../groups/formState';
import { userFormState } from '../users/formState';

/**
 * How a changed record, or an actor, opens from the Audit log and the History tabs: the screen its
 * list opens, with the same navigation state (docs/CONSOLE.md, "Routes"). Records are looked for in
 * the current company and domain only (the screens read the session's), so a record of another
 * domain, or one purged since, shows as its id alone. The routes are written out rather than read
 * from the declarations: this module loads lazily, and importing a declaration from here would cost
 * the first screen (../lazyParts).
 */
export const RECORD_SCREENS: Record<string, (record: RaRecord, translate: TranslateFunction) => { to: string; state: unknown }> = {
  companies: (company, translate) => ({
    to: '/onboarding-company-new',
    state: { mode: 'view', company, parent: getSession().company, header: translate('iam.companies.viewTitle'), url: '/onboarding-companies' },
  }),
  domains: (domain) => ({ to: '/onboarding-domain-new', state: { company: getSession().company, domain, mode: 'view' } }),
  users: (user, translate) => ({ to: '/users-new', state: userFormState('view', translate, user) }),
  groups: (group) => ({ to: '/groups-new', state: groupFormState('view', group) }),
  applications: (application, translate) => ({
    to: '/applications-view',
    state: applicationState('view', translate('iam.applications.viewTitle'), application),
  }),
  apis: (api) => ({ to: '/apis-view', state: apiState('view', api) }),
};

/** Audited types whose records live in a domain: while there is none they are not looked for. */
const IN_DOMAIN = ['users', 'groups', 'applications', 'apis'];

/** The resource a record of this type is read from now, if any. */
export function lookupResource(type: string): string | undefined {
  return RECORD_SCREENS[type] && (getSession().domain || !IN_DOMAIN.includes(type)) ? type : undefined;
}
