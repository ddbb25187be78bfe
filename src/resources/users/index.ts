import { lazy } from 'react';
import PeopleIcon from '@mui/icons-material/People';
import type { ResourceDeclaration } from '../types';

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
  ],
  listColumns: ['displayName', 'email'],
  searchable: true,
  formFields: ['username', 'displayName', 'notes', 'email'],
  softDelete: { field: 'status', active: 'active', deleted: 'deleted' },
  defaultSort: { field: 'displayName', order: 'ASC' },
  pageSize: 3,
  pageWindow: 4,
  routes: { list: '/users', form: '/users-new', deleted: '/users-deleted' },
  screens: {
    list: lazy(() => import('./UserList')),
    form: lazy(() => import('./UserForm')),
  },
};
