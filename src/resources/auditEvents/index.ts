import { lazy, type ComponentType } from 'react';
import HistoryIcon from '@mui/icons-material/ManageHistory';
import type { RecordTabProps, ResourceDeclaration } from '../types';
import { AUDIT_ACTIONS, AUDITED_TYPES } from './vocabulary';

/** The view form's fields; the export adds the id and the changes. */
const FORM_FIELDS = ['occurredAt', 'action', 'resourceType', 'resourceId', 'domainId', 'actorUserId', 'actorCompanyId', 'actorDomainId', 'actorClientId', 'actorIp', 'actorRoles'];

/**
 * A record's History tab (generic/RecordTabs adds it to the screens of types that declare `history`),
 * given this declaration as the log to read; loaded on first use, with the other record tabs and
 * cells (../lazyParts).
 */
export const HistoryTab: ComponentType<RecordTabProps & { log: ResourceDeclaration }> = lazy(() =>
  import('../lazyParts').then((parts) => ({ default: parts.HistoryTab })),
);
const ActorCell = lazy(() => import('../lazyParts').then((parts) => ({ default: parts.ActorCell })));
const ResourceCell = lazy(() => import('../lazyParts').then((parts) => ({ default: parts.ResourceCell })));
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
  permission: 'audit',
  readOnly: true,
  paths: {
    collection: ({ companyId }) => `companys/${encodeURIComponent(companyId)}/auditEvents`,
  },
  fields: [
    { source: 'occurredAt', kind: 'dateTime' },
    { source: 'action', kind: 'select', choices: AUDIT_ACTIONS, choiceLabelPrefix: 'iam.audit.actions', sortable: false },
    { source: 'resourceType', kind: 'select', choices: AUDITED_TYPES, choiceLabelPrefix: 'iam.audit.types', sortable: false },
    // the changed record and the actor: links to their screens when the console can open them
    { source: 'resourceId', kind: 'text', sortable: false, cell: ResourceCell },
    { source: 'actorUserId', kind: 'text', sortable: false, cell: ActorCell },
    { source: 'domainId', kind: 'text', sortable: false },
    { source: 'actorCompanyId', kind: 'text' },
    { source: 'actorDomainId', kind: 'text' },
    { source: 'actorClientId', kind: 'text' },
    { source: 'actorIp', kind: 'text' },
    { source: 'actorRoles', kind: 'text' },
  ],
  listColumns: ['occurredAt', 'action', 'resourceType', 'resourceId', 'actorUserId', 'domainId'],
  moreColumns: ['actorCompanyId', 'actorDomainId', 'actorClientId', 'actorIp', 'actorRoles'],
  filters: [
    { source: 'actorUserId', kind: 'reference', reference: 'users', optionText: 'displayName', inDomain: true },
    { source: 'resourceType', kind: 'select', choices: AUDITED_TYPES, choiceLabelPrefix: 'iam.audit.types' },
    // one record's changes (a History tab's "Open in the Audit log"): its id, as the API names it
    { source: 'resourceId', kind: 'text' },
    { source: 'action', kind: 'select', choices: AUDIT_ACTIONS, choiceLabelPrefix: 'iam.audit.actions' },
    { source: 'occurredAt', kind: 'dateRange' },
  ],
  formFields: FORM_FIELDS,
  expand: AuditDiffPanel,
  // the changes as JSON text
  exportColumns: ['id', ...FORM_FIELDS, 'changes'],
  emptyKeys: { none: 'iam.audit.empty', filtered: 'iam.audit.emptyFiltered' },
  defaultSort: { field: 'occurredAt', order: 'DESC' },
  pageSize: 15,
  pageWindow: 10,
  routes: { list: '/audit-log', form: '/audit-log-view', record: '/audit-log/:id' },
};
