import { lazy } from 'react';
import HubIcon from '@mui/icons-material/Hub';
import type { PathContext } from '../../session/session';
import type { ResourceDeclaration } from '../types';

const PRESET_VALUES = ['custom', 'google', 'entra', 'github', 'apple', 'okta'] as const;
const PROTOCOLS = ['oidc', 'oauth2', 'saml'] as const;

/** A domain's connections below the API base. */
export const connectionsPath = ({ companyId, domainId }: PathContext) =>
  `companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/connections`;

/**
 * Upstream identity providers of the current domain (docs/CONSOLE.md, "Connections"): the list, a
 * wizard whose first step picks a preset, and a screen per connection (its addresses, Test sign-in,
 * its claimed e-mail domains, its settings). Permission resource `connections`.
 */
export const connections: ResourceDeclaration = {
  name: 'connections',
  labelKey: 'iam.menu.connections',
  icon: HubIcon,
  // beside the domain's applications and APIs: what its sign-ins go through
  menu: { group: 'enterprise', order: 30 },
  needsDomain: true,
  paths: { collection: connectionsPath },
  fields: [
    { source: 'displayName', kind: 'text', required: true, maxLength: 200 },
    { source: 'preset', kind: 'select', choices: PRESET_VALUES, choiceLabelPrefix: 'iam.connections.presetValues' },
    { source: 'protocol', kind: 'select', choices: PROTOCOLS, choiceLabelPrefix: 'iam.connections.protocols' },
    // a chip in the list (a boolean would read "true"): the values' labels say Enabled / Disabled
    { source: 'enabled', kind: 'select', choices: ['true', 'false'], choiceLabelPrefix: 'iam.connections.enabledValues', choiceColors: { true: 'success' } },
    { source: 'issuer', kind: 'text', truncate: 40, sortable: false },
    { source: 'clientId', kind: 'text', sortable: false },
    { source: 'createdAt', kind: 'dateTime' },
    { source: 'updatedAt', kind: 'dateTime' },
  ],
  listColumns: ['displayName', 'preset', 'protocol', 'enabled'],
  moreColumns: ['issuer', 'clientId', 'createdAt', 'updatedAt'],
  formFields: ['displayName', 'preset', 'protocol', 'enabled'],
  softDelete: { field: 'status', active: 'active', deleted: 'deleted' },
  defaultSort: { field: 'displayName', order: 'ASC' },
  pageSize: 15,
  pageWindow: 10,
  routes: { list: '/connections', form: '/connections-new', view: '/connections-view' },
  history: {},
  screens: {
    list: lazy(() => import('./screens').then((screens) => ({ default: screens.ConnectionList }))),
    form: lazy(() => import('./screens').then((screens) => ({ default: screens.ConnectionWizard }))),
    view: lazy(() => import('./screens').then((screens) => ({ default: screens.ConnectionView }))),
  },
};
