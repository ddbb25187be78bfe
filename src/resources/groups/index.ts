import { lazy } from 'react';
import GroupsIcon from '@mui/icons-material/Groups';
import type { PathContext } from '../../session/session';
import { holderRolesTab } from '../roleAssignments';
import type { ResourceDeclaration } from '../types';

/** Groups of the current domain (docs/CONSOLE.md, "Groups"); a group's id is its name. Members live below each group. */
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
    // shown only: the provider neither filters nor sorts by them (docs/CONSOLE.md, "Lists"), but Created
    { source: 'memberCount', kind: 'number', sortable: false },
    { source: 'createdAt', kind: 'dateTime' },
    { source: 'updatedAt', kind: 'dateTime', sortable: false },
    { source: 'deletedAt', kind: 'dateTime', sortable: false },
    { source: 'deletedBy', kind: 'text', sortable: false },
  ],
  listColumns: ['displayName', 'email'],
  moreColumns: ['name', 'memberCount', 'createdAt', 'updatedAt', 'deletedAt', 'deletedBy'],
  searchable: true,
  filters: [
    { source: 'createdAt', kind: 'dateRange', more: true },
    { source: 'noMembers', kind: 'boolean', more: true },
  ],
  formFields: ['name', 'displayName', 'notes', 'email'],
  idFromField: 'name',
  softDelete: { field: 'status', active: 'active', deleted: 'deleted' },
  defaultSort: { field: 'displayName', order: 'ASC' },
  pageSize: 3,
  pageWindow: 4,
  routes: { list: '/groups', form: '/groups-new', deleted: '/groups-deleted', record: '/groups/:id' },
  history: {},
  recordTabs: [holderRolesTab('group')],
  screens: {
    list: lazy(() => import('./GroupList')),
    form: lazy(() => import('./GroupForm')),
  },
};

/** The members list, the Add modal's lists and the permissions list (docs/CONSOLE.md, "Constants"). */
export const MEMBER_PAGE_SIZE = 15;
export const MEMBER_PAGE_WINDOW = 10;

/** What lives below one group: its path is the group's, with the group id as the parent id. */
const belowGroup = (segment: string) => (context: PathContext) =>
  `${groups.paths.collection(context)}/${encodeURIComponent(context.parentId ?? '')}/${segment}`;

/** Shared by the group's embedded resources: the Members and Permissions tabs of the group form. */
const embedded = {
  icon: GroupsIcon,
  embeddedIn: 'groups',
  pageSize: MEMBER_PAGE_SIZE,
  pageWindow: MEMBER_PAGE_WINDOW,
  routes: groups.routes,
} as const;

/** A group's members (users and groups); removed by id and type. */
export const groupMembers: ResourceDeclaration = {
  ...embedded,
  name: 'groupMembers',
  labelKey: 'iam.groups.members',
  paths: { collection: belowGroup('members') },
  fields: [
    { source: 'displayName', kind: 'text' },
    { source: 'type', kind: 'select', choices: ['user', 'group'], choiceLabelPrefix: 'iam.members.types' },
  ],
  listColumns: ['displayName', 'type'],
  formFields: [],
  defaultSort: { field: 'displayName', order: 'ASC' },
};

/** What the Add dialog offers: active users or groups (meta.query type) that are not members yet. */
export const groupMemberCandidates: ResourceDeclaration = {
  ...groupMembers,
  name: 'groupMemberCandidates',
  paths: { collection: belowGroup('candidates') },
  searchable: true,
};

/** A group's granted API permission scopes: a grant is its API and scope, which make its id here. */
export const groupPermissions: ResourceDeclaration = {
  ...embedded,
  name: 'groupPermissions',
  labelKey: 'iam.groupPermissions.tab',
  paths: { collection: belowGroup('permissions') },
  recordId: (record) => `${String(record.apiId)}\n${String(record.permission)}`,
  fields: [
    { source: 'apiName', kind: 'text' },
    { source: 'permission', kind: 'text' },
    { source: 'description', kind: 'text' },
  ],
  listColumns: ['apiName', 'permission', 'description'],
  formFields: [],
  defaultSort: { field: 'apiName', order: 'ASC' },
};
