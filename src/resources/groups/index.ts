import { lazy } from 'react';
import GroupsIcon from '@mui/icons-material/Groups';
import type { ResourceDeclaration } from '../types';

/** Groups of the current domain (SPEC 2.10); a group's id is its name. Members live below each group. */
export const groups: ResourceDeclaration = {
  name: 'groups',
  labelKey: 'iam.menu.allGroups',
  icon: GroupsIcon,
  menu: { group: 'groups', order: 10, deletedLabelKey: 'iam.menu.deletedGroups' },
  needsDomain: true,
  paths: {
    collection: ({ companyId, domainId }) =>
      `companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/groups`,
  },
  fields: [
    { source: 'name', kind: 'text', required: true, rule: 'id', maxLength: 128 },
    { source: 'displayName', kind: 'text', required: true, maxLength: 200 },
    { source: 'notes', kind: 'textarea', maxLength: 2000 },
    { source: 'email', kind: 'email', required: true, maxLength: 254 },
  ],
  listColumns: ['displayName', 'email'],
  searchable: true,
  formFields: ['name', 'displayName', 'notes', 'email'],
  idFromField: 'name',
  softDelete: { field: 'status', active: 'active', deleted: 'deleted' },
  defaultSort: { field: 'displayName', order: 'ASC' },
  pageSize: 3,
  pageWindow: 4,
  routes: { list: '/groups', form: '/groups-new', deleted: '/groups-deleted' },
  screens: {
    list: lazy(() => import('./GroupList')),
    form: lazy(() => import('./GroupForm')),
  },
};

/** SPEC 9: the members list and the Add modal's lists. */
export const MEMBER_PAGE_SIZE = 15;
export const MEMBER_PAGE_WINDOW = 10;
