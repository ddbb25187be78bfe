import LoginIcon from '@mui/icons-material/Login';
import type { ResourceDeclaration } from '../types';

/** What the authorization server records of an attempt (docs/CONSOLE.md, "Sign-ins and rights"). */
export const SIGN_IN_OUTCOMES = [
  'success',
  'wrong_password',
  'unknown_user',
  'throttled',
  'bad_client',
  'bad_redirect_uri',
  'bad_pkce',
  'code_reused',
  'bad_code',
  'consent_denied',
  'refresh_reuse',
  'blocked',
  'second_factor_failed',
  'several_organizations',
  // through an upstream identity provider (docs/CONSOLE.md, "Connections")
  'upstream_failed',
  'upstream_not_linked',
] as const;

/**
 * Sign-in logs (docs/CONSOLE.md, "Sign-in logs"): the sign-in events of the current domain,
 * read-only, newest first. Only the time sorts: the provider's index follows it, and a log this long
 * is read by time.
 */
export const signInEvents: ResourceDeclaration = {
  name: 'signInEvents',
  labelKey: 'iam.menu.signInLogs',
  icon: LoginIcon,
  menu: { group: 'users', order: 20 },
  needsDomain: true,
  readOnly: true,
  paths: {
    collection: ({ companyId, domainId }) =>
      `companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/signInEvents`,
  },
  fields: [
    { source: 'occurredAt', kind: 'dateTime' },
    {
      source: 'outcome',
      kind: 'select',
      choices: SIGN_IN_OUTCOMES,
      choiceLabelPrefix: 'iam.signIns.outcomes',
      // success; what the person did; what the application or an attacker did
      choiceColors: {
        success: 'success',
        wrong_password: 'warning',
        unknown_user: 'warning',
        consent_denied: 'info',
        throttled: 'error',
        bad_client: 'error',
        bad_redirect_uri: 'error',
        bad_pkce: 'error',
        code_reused: 'error',
        bad_code: 'error',
        refresh_reuse: 'error',
        blocked: 'warning',
        second_factor_failed: 'error',
        several_organizations: 'info',
        upstream_failed: 'error',
        upstream_not_linked: 'warning',
      },
      sortable: false,
    },
    {
      source: 'login',
      kind: 'text',
      sortable: false,
      // an attempt with a known user but nothing typed (a refresh, a consent answer) shows the user's id
      fallback: 'userId',
      // the user and the application open at their addresses (generic/FieldValue)
      reference: { resource: 'users', idSource: 'userId' },
    },
    { source: 'clientId', kind: 'text', sortable: false, reference: { resource: 'applications', optionText: 'client_name' } },
    { source: 'ip', kind: 'text', sortable: false },
    { source: 'userAgent', kind: 'textarea', truncate: 28, sortable: false },
    { source: 'detail', kind: 'text', sortable: false },
    // the upstream identity provider's connection the sign-in came through, if any
    { source: 'connectionId', kind: 'text', sortable: false },
    { source: 'userId', kind: 'text', sortable: false },
  ],
  listColumns: ['occurredAt', 'outcome', 'login', 'clientId', 'ip', 'userAgent'],
  moreColumns: ['detail', 'connectionId'],
  filters: [
    { source: 'userId', kind: 'reference', reference: 'users', optionText: 'displayName' },
    { source: 'clientId', kind: 'reference', reference: 'applications', optionText: 'client_name' },
    { source: 'outcome', kind: 'select', choices: SIGN_IN_OUTCOMES, choiceLabelPrefix: 'iam.signIns.outcomes' },
    { source: 'occurredAt', kind: 'dateRange' },
  ],
  formFields: ['occurredAt', 'outcome', 'login', 'userId', 'clientId', 'ip', 'userAgent', 'detail'],
  emptyKeys: { none: 'iam.signIns.empty', filtered: 'iam.signIns.emptyFiltered' },
  defaultSort: { field: 'occurredAt', order: 'DESC' },
  pageSize: 15,
  pageWindow: 10,
  routes: { list: '/sign-in-logs', form: '/sign-in-logs-view', record: '/sign-in-logs/:id' },
};
