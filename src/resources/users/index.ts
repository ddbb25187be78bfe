import { createElement, lazy, type ComponentType } from 'react';
import PeopleIcon from '@mui/icons-material/People';
import { holderRolesTab } from '../roleAssignments';
import type { RecordTabProps, ResourceDeclaration } from '../types';

/** A panel of one user's records (sign-ins, sessions) as a tab of the user screen, loaded on first use (../lazyParts). */
const userPanel = (pick: (parts: typeof import('../lazyParts')) => ComponentType<{ userId: string }>) =>
  lazy(async () => {
    const Panel = pick(await import('../lazyParts'));
    return { default: ({ record }: RecordTabProps) => createElement(Panel, { userId: String(record.id) }) };
  });

/**
 * Users of the current domain (docs/CONSOLE.md, "Users"). The provider picks a user's id; the username stays
 * editable. Passwords are not declared fields: the user form adds them in new mode only.
 */
export const users: ResourceDeclaration = {
  name: 'users',
  labelKey: 'iam.menu.allUsers',
  icon: PeopleIcon,
  menu: { group: 'users', order: 10, deletedLabelKey: 'iam.menu.deletedUsers' },
  needsDomain: true,
  paths: {
    collection: ({ companyId, domainId }) =>
      `companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/users`,
  },
  fields: [
    { source: 'username', kind: 'text', required: true, maxLength: 200 },
    { source: 'displayName', kind: 'text', required: true, maxLength: 200 },
    { source: 'notes', kind: 'textarea', maxLength: 2000 },
    { source: 'email', kind: 'email', required: true, maxLength: 254 },
    // shown in lists (docs/CONSOLE.md, "Lists"); set by the provider
    { source: 'createdAt', kind: 'dateTime' },
    { source: 'lastSignInAt', kind: 'dateTime' },
    { source: 'groupCount', kind: 'number', sortable: false },
    { source: 'updatedAt', kind: 'dateTime', sortable: false },
    { source: 'deletedAt', kind: 'dateTime', sortable: false },
    { source: 'deletedBy', kind: 'text', sortable: false },
  ],
  listColumns: ['displayName', 'email'],
  moreColumns: ['username', 'createdAt', 'lastSignInAt', 'groupCount', 'updatedAt', 'deletedAt', 'deletedBy'],
  // the typed purge quotes the username, a row marks a blocked account, the status tells the lists apart
  listReads: ['username', 'status', 'blockedAt'],
  searchable: true,
  filters: [
    { source: 'createdAt', kind: 'dateRange', more: true },
    { source: 'lastSignInAt', kind: 'dateRange', more: true },
    { source: 'neverSignedIn', kind: 'boolean', more: true },
    { source: 'inNoGroup', kind: 'boolean', more: true },
    { source: 'memberOf', kind: 'reference', reference: 'groups', optionText: 'displayName', inDomain: true, more: true },
    { source: 'emailDomain', kind: 'text', more: true },
    { source: 'blocked', kind: 'boolean', more: true },
    { source: 'emailVerified', kind: 'boolean', more: true },
    // locked now by the sign-in throttle or the second-factor lock (server/api/listFields.ts)
    { source: 'locked', kind: 'boolean', more: true },
  ],
  formFields: ['username', 'displayName', 'notes', 'email'],
  softDelete: { field: 'status', active: 'active', deleted: 'deleted' },
  defaultSort: { field: 'displayName', order: 'ASC' },
  pageSize: 3,
  deferredTotal: true,
  pageWindow: 4,
  routes: { list: '/users', form: '/users-new', deleted: '/users-deleted', record: '/users/:id' },
  history: {},
  recordTabs: [
    { id: 'signIns', labelKey: 'iam.users.tabs.signIns', lists: 'signInEvents', component: userPanel((parts) => parts.UserSignIns) },
    { id: 'sessions', labelKey: 'iam.sessions.tab', lists: 'sessions', component: userPanel((parts) => parts.UserSessions) },
    holderRolesTab('user'),
    // accounts at upstream identity providers (docs/CONSOLE.md, "Linked identities"), in the Connections screens' chunk
    {
      id: 'identities',
      labelKey: 'iam.identities.tab',
      lists: 'users',
      component: lazy(() => import('../connections/screens').then((screens) => ({ default: screens.LinkedIdentities }))),
    },
  ],
  screens: {
    list: lazy(() => import('./UserList')),
    form: lazy(() => import('./UserForm')),
  },
};
