import { lazy, type ComponentType } from 'react';
import HistoryIcon from '@mui/icons-material/ManageHistory';
import type { RaRecord } from 'react-admin';
import { getSession } from '../../session/session';
import { apiState } from '../apis/formState';
import { applicationState } from '../applications/formState';
import { groupFormState } from '../groups/formState';
import { userFormState } from '../users/formState';
import type { RecordTabProps, ResourceDeclaration } from '../types';
import { AUDIT_ACTIONS, AUDITED_TYPES } from './vocabulary';

type Translate = (key: string, options?: object) => string;

/**
 * How a changed record opens: the screen its list opens, with the same navigation state. Records
 * are found in the current company and domain only (the screens read the session's), so a record
 * of another domain, or one purged since, shows as its id alone.
 */
const RECORD_SCREENS: Record<string, (record: RaRecord, translate: Translate) => { to: string; state: unknown }> = {
  companies: (company, translate) => ({
    to: '/onboarding-company-new',
    state: {
      mode: 'view',
      company,
      parent: getSession().company,
      header: translate('iam.companies.viewTitle'),
      url: '/onboarding-companies',
    },
  }),
  domains: (domain) => ({ to: '/onboarding-domain-new', state: { company: getSession().company, domain, mode: 'view' } }),
  users: (user, translate) => ({ to: '/users-new', state: userFormState('view', translate, user) }),
  groups: (group) => ({ to: '/groups-new', state: groupFormState('view', group) }),
  applications: (application, translate) => ({
    to: '/applications-view',
    state: applicationState('view', translate('iam.applications.viewTitle'), application),
  }),
  apis: (api) => ({ to: '/apis-view', state: apiState('view', api) }),
};

/** Audited types whose records live in a domain. */
const IN_DOMAIN = ['users', 'groups', 'applications', 'apis'];

/**
 * A record's History tab (generic/RecordTabs adds it to the screens of types that declare `history`),
 * given this declaration as the log to read; loaded on first use, with the other record tabs and
 * cells (../lazyParts).
 */
export const HistoryTab: ComponentType<RecordTabProps & { log: ResourceDeclaration }> = lazy(() =>
  import('../lazyParts').then((parts) => ({ default: parts.HistoryTab })),
);
const ActorCell = lazy(() => import('../lazyParts').then((parts) => ({ default: parts.ActorCell })));
const AuditDiffPanel = lazy(() => import('../lazyParts').then((parts) => ({ default: parts.AuditDiffPanel })));

/**
 * The Audit log (docs/CONSOLE.md, "History and audit log"): every change recorded in the current
 * company's log, read-only, newest first; a row expands to the fields it changed. Company-level: it
 * needs no domain. Only the time sorts: the provider's indexes follow it.
 */
export const auditEvents: ResourceDeclaration = {
  name: 'auditEvents',
  labelKey: 'iam.menu.auditLog',
  icon: HistoryIcon,
  menu: { order: 10 },
  readOnly: true,
  paths: {
    collection: ({ companyId }) => `companys/${encodeURIComponent(companyId)}/auditEvents`,
  },
  fields: [
    { source: 'occurredAt', kind: 'dateTime' },
    { source: 'action', kind: 'select', choices: AUDIT_ACTIONS, choiceLabelPrefix: 'iam.audit.actions', sortable: false },
    { source: 'resourceType', kind: 'select', choices: AUDITED_TYPES, choiceLabelPrefix: 'iam.audit.types', sortable: false },
    {
      source: 'resourceId',
      kind: 'text',
      sortable: false,
      // the changed record, of whichever type the row names
      reference: {
        // records of a domain are looked for in the current one, and not at all while there is none
        resource: (row) => (getSession().domain || !IN_DOMAIN.includes(String(row.resourceType)) ? String(row.resourceType) : undefined),
        link: (record, translate, row) => RECORD_SCREENS[String(row.resourceType)]?.(record as RaRecord, translate),
      },
    },
    {
      source: 'actorUserId',
      kind: 'text',
      sortable: false,
      reference: {
        resource: () => (getSession().domain ? 'users' : undefined),
        optionText: 'displayName',
        link: (user, translate) => RECORD_SCREENS.users(user as RaRecord, translate),
      },
      cell: ActorCell,
    },
    { source: 'domainId', kind: 'text', sortable: false },
    { source: 'actorCompanyId', kind: 'text' },
    { source: 'actorDomainId', kind: 'text' },
    { source: 'actorClientId', kind: 'text' },
    { source: 'actorIp', kind: 'text' },
  ],
  listColumns: ['occurredAt', 'action', 'resourceType', 'resourceId', 'actorUserId', 'domainId'],
  filters: [
    { source: 'actorUserId', kind: 'reference', reference: 'users', optionText: 'displayName', inDomain: true },
    { source: 'resourceType', kind: 'select', choices: AUDITED_TYPES, choiceLabelPrefix: 'iam.audit.types' },
    { source: 'action', kind: 'select', choices: AUDIT_ACTIONS, choiceLabelPrefix: 'iam.audit.actions' },
    { source: 'occurredAt', kind: 'dateRange' },
  ],
  formFields: ['occurredAt', 'action', 'resourceType', 'resourceId', 'domainId', 'actorUserId', 'actorCompanyId', 'actorDomainId', 'actorClientId', 'actorIp'],
  expand: AuditDiffPanel,
  // the changes as JSON text
  exportColumns: ['id', 'occurredAt', 'action', 'resourceType', 'resourceId', 'domainId', 'actorUserId', 'actorCompanyId', 'actorDomainId', 'actorClientId', 'actorIp', 'changes'],
  emptyKeys: { none: 'iam.audit.empty', filtered: 'iam.audit.emptyFiltered' },
  defaultSort: { field: 'occurredAt', order: 'DESC' },
  pageSize: 15,
  pageWindow: 10,
  routes: { list: '/audit-log', form: '/audit-log-view' },
};
