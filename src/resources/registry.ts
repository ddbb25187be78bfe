/** Every resource the console knows. A new resource type is one declaration and one line here. */
import { companies, subtreeCompanies } from './companies';
import { domains } from './domains';
import { users } from './users';
import { groupMemberCandidates, groupMembers, groupPermissions, groups } from './groups';
import { applications } from './applications';
import { apis, permissionScopes } from './apis';
import { signInEvents } from './signInEvents';
import { sessions } from './sessions';
import { auditEvents } from './auditEvents';
import { roleAssignments } from './roleAssignments';
import { outbox } from './outbox';
import { connections } from './connections';
import { userJobs } from './userJobs';
import type { ResourceDeclaration } from './types';

export const registry: readonly ResourceDeclaration[] = [
  companies,
  subtreeCompanies,
  domains,
  users,
  groups,
  groupMembers,
  groupMemberCandidates,
  groupPermissions,
  applications,
  apis,
  permissionScopes,
  signInEvents,
  sessions,
  auditEvents,
  roleAssignments,
  outbox,
  connections,
  userJobs,
];
