/**
 * The parts of record screens and list rows that load on first use, all in one lazily loaded chunk:
 * the History tab, the Audit log's actor cell and row detail, a user's Sign-ins and Sessions tabs, the
 * Roles screens (the list, its Assign dialog, a user's or group's Roles tab) and cells.
 * One chunk on purpose: every separately loaded module that uses the first screen's shared modules
 * (MUI, react-admin) makes the bundler split them into more, smaller chunks, which costs the first
 * screen after sign-in about a kilobyte each (docs/PERFORMANCE.md). Declarations reach these parts
 * with `lazy(() => import('../lazyParts').then(...))`; nothing here imports a declaration or the
 * registry, for the same reason: what they need (routes, the audit log's and the roles' declarations)
 * they are given at run time.
 */
export { default as HistoryTab } from './auditEvents/HistoryTab';
export { ActorCell, ResourceCell } from './auditEvents/AuditCells';
export { default as AuditDiffPanel } from './auditEvents/AuditDiffPanel';
export { default as UserSignIns } from './signInEvents/UserSignIns';
export { default as UserSessions } from './sessions/UserSessions';
export { RoleCell, OverCell } from './roleAssignments/RoleCells';
export { RoleList, RoleAssignScreen, HolderRoles } from './roleAssignments/RoleList';
export { default as OutboxList } from './outbox/OutboxList';
export { default as OutboxMessage } from './outbox/OutboxMessage';
export { default as RecordLink } from './generic/RecordLink';
