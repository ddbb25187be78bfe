import { lazy } from 'react';
import PeopleIcon from '@mui/icons-material/People';
import type { ResourceDeclaration } from '../types';

/**
 * Declared now so the registry shows the pattern; its screens are the generic ones until the
 * user screens of SPEC 2.10 replace them.
 */
export const users: ResourceDeclaration = {
  name: 'users',
  labelKey: 'iam.menu.allUsers',
  icon: PeopleIcon,
  paths: {
    collection: ({ companyId, domainId }) =>
      `companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/users`,
  },
  fields: [
    { source: 'username', kind: 'text', required: true },
    { source: 'displayName', kind: 'text', required: true },
    { source: 'notes', kind: 'textarea' },
    { source: 'email', kind: 'email', required: true },
  ],
  listColumns: ['displayName', 'email'],
  searchable: true,
  formFields: ['username', 'displayName', 'notes', 'email'],
  idFromField: 'username',
  softDelete: { field: 'status', active: 'active', deleted: 'deleted' },
  defaultSort: { field: 'displayName', order: 'ASC' },
  pageSize: 3,
  pageWindow: 4,
  routes: { list: '/users', form: '/users-new' },
  screens: {
    list: lazy(() => import('../generic/GenericList')),
    form: lazy(() => import('../generic/GenericForm')),
  },
};
