import { lazy } from 'react';
import AppsIcon from '@mui/icons-material/Apps';
import type { ResourceDeclaration } from '../types';

export const APP_TYPES = ['SPA', 'web', 'native', 'machine'] as const;
export const GRANT_TYPES = [
  'implicit',
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'password',
  'MFA',
  'passwordless_otp',
  // RFC 8628 device authorization (the provider offers it as urn:ietf:params:oauth:grant-type:device_code)
  'device_code',
] as const;

/** The wizard's steps in new mode and the expandable sections in edit and view modes (docs/CONSOLE.md, "Applications"). */
export const APPLICATION_SECTIONS = [
  {
    labelKey: 'iam.applications.steps.basic',
    sources: ['client_name', 'domain', 'description', 'logo_uri', 'app_type', 'client_id', 'client_secret'],
  },
  {
    labelKey: 'iam.applications.steps.properties',
    sources: [
      'audience',
      'grant_types',
      'id_token_expiration',
      'refresh_token_rotation',
      'refresh_reuse_interval',
      'refresh_absolute_expiration',
      'refresh_absolute_lifetime',
    ],
  },
  {
    labelKey: 'iam.applications.steps.uris',
    sources: ['client_uri', 'client_logout_uri', 'redirect_uris', 'allowed_web_orgins', 'backchannel_logout_uri'],
  },
] as const;

/** The provider's largest lifetime (a 32-bit integer of seconds, server/api/applications.ts). */
const MAX_SECONDS = 2147483647;

export const applications: ResourceDeclaration = {
  name: 'applications',
  labelKey: 'iam.menu.applications',
  icon: AppsIcon,
  menu: { group: 'enterprise', order: 10 },
  needsDomain: true,
  paths: {
    collection: ({ companyId, domainId }) => `${encodeURIComponent(companyId)}/${encodeURIComponent(domainId)}/application`,
    // Create sends companyId and domain in the body, so the chosen domain need not be the current one.
    records: () => 'application',
  },
  fields: [
    { source: 'client_name', kind: 'text', required: true, maxLength: 200 },
    { source: 'domain', kind: 'select', required: true },
    { source: 'description', kind: 'textarea', maxLength: 2000 },
    { source: 'logo_uri', kind: 'text', rule: 'httpUrl', maxLength: 2000 },
    { source: 'app_type', kind: 'select', choices: APP_TYPES, choiceLabelPrefix: 'iam.applications.appTypes', defaultValue: 'SPA' },
    { source: 'client_id', kind: 'text', rule: 'clientId', copy: true },
    { source: 'client_secret', kind: 'text', required: true, rule: 'clientSecret' },
    { source: 'audience', kind: 'text', maxLength: 200 },
    {
      source: 'grant_types',
      kind: 'checkboxes',
      choices: GRANT_TYPES,
      choiceLabelPrefix: 'iam.applications.grantTypes',
      defaultValue: ['authorization_code', 'refresh_token'],
      sortable: false,
    },
    { source: 'id_token_expiration', kind: 'number', required: true, defaultValue: 36000, min: 1, max: MAX_SECONDS },
    { source: 'refresh_token_rotation', kind: 'boolean', defaultValue: false },
    { source: 'refresh_reuse_interval', kind: 'number', required: true, defaultValue: 0, min: 0, max: MAX_SECONDS },
    { source: 'refresh_absolute_expiration', kind: 'boolean', defaultValue: false },
    { source: 'refresh_absolute_lifetime', kind: 'number', required: true, defaultValue: 31557600, min: 1, max: MAX_SECONDS },
    { source: 'client_uri', kind: 'text', rule: 'httpUrl', maxLength: 2000 },
    { source: 'client_logout_uri', kind: 'uriList', uriKind: 'uri', maxLength: 2000 },
    { source: 'redirect_uris', kind: 'uriList', uriKind: 'uri', maxLength: 2000 },
    { source: 'allowed_web_orgins', kind: 'uriList', uriKind: 'origin', maxLength: 2000 },
    // one URL, called by the provider itself: the stricter https rule is the provider's (a 400 lands under the field)
    { source: 'backchannel_logout_uri', kind: 'text', rule: 'httpUrl', maxLength: 2000, helpKey: 'iam.applications.help.backchannel_logout_uri' },
    { source: 'deletedAt', kind: 'dateTime', sortable: false },
    { source: 'deletedBy', kind: 'text', sortable: false },
  ],
  // what support is asked about: the client id (copied into a ticket or a configuration) and the type
  listColumns: ['client_name', 'client_id', 'app_type', 'audience'],
  moreColumns: ['grant_types', 'description', 'deletedAt', 'deletedBy'],
  searchable: true,
  filters: [
    { source: 'app_type', kind: 'select', choices: APP_TYPES, choiceLabelPrefix: 'iam.applications.appTypes', more: true },
    { source: 'grantType', kind: 'select', choices: GRANT_TYPES, choiceLabelPrefix: 'iam.applications.grantTypes', more: true },
  ],
  formFields: APPLICATION_SECTIONS.flatMap((section) => section.sources),
  idFromField: 'client_id',
  softDelete: { field: 'status', active: 'active', deleted: 'deleted' },
  defaultSort: { field: 'client_name', order: 'ASC' },
  pageSize: 15,
  pageWindow: 10,
  routes: { list: '/applications', form: '/applications-new', view: '/applications-view', record: '/applications/:id' },
  history: {},
  screens: {
    list: lazy(() => import('./ApplicationList')),
    form: lazy(() => import('./ApplicationForm')),
    view: lazy(() => import('./ApplicationView')),
  },
};
