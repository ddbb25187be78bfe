/**
 * The words of the audit trail (docs/CONSOLE.md, "History and audit log"): the resource types the
 * provider records and the actions it names. Labels are under iam.audit.types and iam.audit.actions.
 */

/** Resource types with a history; each is also the name of its console declaration. */
export const AUDITED_TYPES = ['companies', 'domains', 'users', 'groups', 'applications', 'apis', 'connections'] as const;

export const AUDIT_ACTIONS = [
  'create',
  'update',
  'delete',
  'recover',
  'purge',
  'setPrimary',
  'rotateSecret',
  'addMember',
  'removeMember',
  'addPermission',
  'removePermission',
  'addScope',
  'updateScope',
  'removeScope',
  'revokeSession',
  'signOutEverywhere',
  'addRole',
  'removeRole',
  'unlock',
  'resetFactors',
  // account states and recovery (docs/CONSOLE.md, "Account states")
  'block',
  'unblock',
  'setPassword',
  'requiredActions',
  'sendResetLink',
  'sendVerification',
  'sendInvitation',
  'securityPolicy',
  // a person's own actions (reset and invitation links, verification, a change at sign-in)
  'resetPassword',
  'acceptInvitation',
  'verifyEmail',
  'changePassword',
  // her own second factors, on the account page or at sign-in (server/mfa/steps.ts)
  'enrolFactor',
  'removeFactor',
  'newRecoveryCodes',
  // a connection's claimed e-mail domains and test sign-in, a user's linked identities (docs/CONSOLE.md, "Connections")
  'addEmailDomain',
  'verifyEmailDomain',
  'removeEmailDomain',
  'testSignIn',
  'unlinkIdentity',
  'linkIdentity',
  // a company's branding and e-mail templates (docs/CONSOLE.md, "Branding")
  'branding',
  'emailTemplate',
] as const;

/** One record of a company's log, as GET /api/companys/{c}/auditEvents answers it. */
export interface AuditEvent {
  id: string;
  occurredAt: string;
  domainId: string | null;
  resourceType: string;
  resourceId: string;
  action: string;
  /** field -> { before?, after? }, or { hidden: true } for a secret that changed. */
  changes: Record<string, unknown> | null;
  actorUserId: string | null;
  actorCompanyId: string | null;
  actorDomainId: string | null;
  actorClientId: string | null;
  actorIp: string | null;
  /** The roles the actor acted under there (space-separated ids), when recorded. */
  actorRoles?: string | null;
}
