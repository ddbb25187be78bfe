import { lazy } from 'react';
import ApiIcon from '@mui/icons-material/Api';
import type { ResourceDeclaration } from '../types';

export const SIGNING_ALGORITHMS = ['RS256', 'HS256'] as const;

/** The wizard's steps in new mode and the sections of the Settings tab (docs/CONSOLE.md, "APIs and permission scopes"). */
export const API_SECTIONS = [
  { labelKey: 'iam.apis.steps.general', sources: ['name', 'identifier', 'domain'] },
  { labelKey: 'iam.apis.steps.token', sources: ['tokenExpiration', 'tokenExpirationBrowser', 'signingAlgorithm'] },
  { labelKey: 'iam.apis.steps.rbac', sources: ['RBAC', 'addPermissionAccessToken'] },
  { labelKey: 'iam.apis.steps.access', sources: ['allowSkippingUserConsent', 'allowOfflineAccess'] },
] as const;

export const apis: ResourceDeclaration = {
  name: 'apis',
  labelKey: 'iam.menu.apis',
  icon: ApiIcon,
  menu: { group: 'enterprise', order: 20 },
  needsDomain: true,
  paths: {
    collection: ({ companyId, domainId }) => `${encodeURIComponent(companyId)}/${encodeURIComponent(domainId)}/api`,
    // Create sends companyId and domain in the body; single APIs live at /api/{id}.
    records: () => 'api',
  },
  fields: [
    { source: 'name', kind: 'text', required: true, maxLength: 200 },
    { source: 'identifier', kind: 'text', required: true, rule: 'noSpaces', maxLength: 200 },
    { source: 'domain', kind: 'select', required: true },
    { source: 'tokenExpiration', kind: 'number', required: true, defaultValue: 86400, min: 1, max: 2592000 },
    { source: 'tokenExpirationBrowser', kind: 'number', required: true, defaultValue: 7200, min: 1, max: 86400 },
    { source: 'signingAlgorithm', kind: 'select', choices: SIGNING_ALGORITHMS, defaultValue: 'RS256' },
    { source: 'RBAC', kind: 'boolean', defaultValue: false },
    { source: 'addPermissionAccessToken', kind: 'boolean', defaultValue: false },
    { source: 'allowSkippingUserConsent', kind: 'boolean', defaultValue: true },
    { source: 'allowOfflineAccess', kind: 'boolean', defaultValue: false },
    { source: 'deletedAt', kind: 'dateTime', sortable: false },
    { source: 'deletedBy', kind: 'text', sortable: false },
  ],
  listColumns: ['name', 'identifier'],
  moreColumns: ['signingAlgorithm', 'tokenExpiration', 'deletedAt', 'deletedBy'],
  searchable: true,
  filters: [{ source: 'signingAlgorithm', kind: 'select', choices: SIGNING_ALGORITHMS, more: true }],
  formFields: API_SECTIONS.flatMap((section) => section.sources),
  softDelete: { field: 'status', active: 'active', deleted: 'deleted' },
  defaultSort: { field: 'name', order: 'ASC' },
  pageSize: 15,
  pageWindow: 10,
  routes: { list: '/apis', form: '/apis-new', view: '/apis-view', record: '/apis/:id' },
  history: {},
  screens: {
    list: lazy(() => import('./ApiList')),
    form: lazy(() => import('./ApiForm')),
    view: lazy(() => import('./ApiView')),
  },
};

/** An API's permission scopes: shown in the Permission tab of /apis-view, never on a route of their own. */
export const permissionScopes: ResourceDeclaration = {
  name: 'permissionScopes',
  labelKey: 'iam.apis.tabs.permission',
  icon: ApiIcon,
  embeddedIn: 'apis',
  paths: {
    collection: ({ parentId }) => `api/${encodeURIComponent(parentId ?? '')}/PermissionScopes`,
  },
  fields: [
    { source: 'permission', kind: 'text', required: true, rule: 'scope' },
    { source: 'description', kind: 'text', maxLength: 500 },
  ],
  listColumns: ['permission', 'description'],
  formFields: ['permission', 'description'],
  idFromField: 'permission',
  defaultSort: { field: 'permission', order: 'ASC' },
  pageSize: 15,
  pageWindow: 10,
  routes: apis.routes,
  screens: apis.screens,
};
