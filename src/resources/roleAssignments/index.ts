import { createElement, lazy } from 'react';
import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import type { RecordTabDeclaration, RecordTabProps, ResourceDeclaration } from '../types';

const RoleCell = lazy(() => import('../lazyParts').then((parts) => ({ default: parts.RoleCell })));
const OverCell = lazy(() => import('../lazyParts').then((parts) => ({ default: parts.OverCell })));

/**
 * Who holds which role where (docs/CONSOLE.md, "Roles"): the role assignments over the current
 * company, its domains and the companies below it, given to a user or a group and taken back
 * (never edited). The roles themselves, their names and what each allows, are the provider's
 * (GET /api/roles). The administrators groups' Administrators are not assignments: not listed.
 */
export const roleAssignments: ResourceDeclaration = {
  name: 'roleAssignments',
  labelKey: 'iam.menu.roles',
  icon: AdminPanelSettingsIcon,
  menu: { order: 20 },
  permission: 'roles',
  paths: {
    collection: ({ companyId }) => `companys/${encodeURIComponent(companyId)}/roleAssignments`,
  },
  fields: [
    // role ids sort as their names do
    { source: 'role', kind: 'text', cell: RoleCell },
    { source: 'holderName', kind: 'text', sortable: false },
    { source: 'holderType', kind: 'select', choices: ['user', 'group'], choiceLabelPrefix: 'iam.members.types' },
    { source: 'companyId', kind: 'text', sortable: false, cell: OverCell },
    { source: 'createdAt', kind: 'dateTime' },
  ],
  listColumns: ['role', 'holderName', 'holderType', 'companyId', 'createdAt'],
  filters: [{ source: 'holderType', kind: 'select', choices: ['user', 'group'], choiceLabelPrefix: 'iam.members.types' }],
  formFields: [],
  emptyKeys: { none: 'iam.roles.empty', filtered: 'iam.roles.emptyFiltered' },
  defaultSort: { field: 'createdAt', order: 'DESC' },
  pageSize: 15,
  pageWindow: 10,
  // the form is the Assign dialog, opened over the list
  routes: { list: '/roles', form: '/roles-assign' },
  screens: {
    list: lazy(() => import('../lazyParts').then((parts) => ({ default: parts.RoleList }))),
    form: lazy(() => import('../lazyParts').then((parts) => ({ default: parts.RoleAssignScreen }))),
  },
};

/** The Roles tab of a user's or group's screen: that holder's assignments, with Assign and Remove. */
export const holderRolesTab = (holderType: 'user' | 'group'): RecordTabDeclaration => ({
  id: 'roles',
  labelKey: 'iam.roles.tab',
  lists: roleAssignments.name,
  component: lazy(async () => {
    const { HolderRoles } = await import('../lazyParts');
    return { default: (props: RecordTabProps) => createElement(HolderRoles, { ...props, holderType, assignments: roleAssignments }) };
  }),
});
