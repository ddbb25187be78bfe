import type { FastifyInstance } from 'fastify';
import { accountEmailRoutes } from './accountEmail.js';
import { accountStateRoutes } from './accountState.js';
import { administratorRoutes } from './administrators.js';
import { apiResourceRoutes } from './apis.js';
import { auditEventRoutes } from './auditEvents.js';
import { applicationRoutes } from './applications.js';
import { applicationSecretRoutes } from './applicationSecrets.js';
import { groupPermissionRoutes } from './groupPermissions.js';
import { companyRoutes } from './companies.js';
import { domainRoutes } from './domains.js';
import { factorRoutes } from './factors.js';
import { groupRoutes } from './groups.js';
import { memberRoutes } from './members.js';
import { sessionRoutes } from './sessions.js';
import { signInEventRoutes } from './signInEvents.js';
import { userRoutes } from './users.js';
import { userBulkRoutes } from './userBulk.js';
import { permissionScopeRoutes } from './permissionScopes.js';
import { principalRightsRoutes } from './principalRights.js';
import { roleAssignmentRoutes } from './roleAssignments.js';
import { securityPolicyRoutes } from './securityPolicy.js';

/** The management API, one module per resource (docs/CONSOLE.md, "Resources"). */
export async function apiRoutes(app: FastifyInstance) {
  await app.register(companyRoutes);
  await app.register(applicationRoutes);
  await app.register(apiResourceRoutes);
  await app.register(permissionScopeRoutes);
  await app.register(domainRoutes);
  await app.register(userRoutes);
  await app.register(userBulkRoutes);
  await app.register(groupRoutes);
  await app.register(memberRoutes);
  await app.register(applicationSecretRoutes);
  await app.register(groupPermissionRoutes);
  await app.register(administratorRoutes);
  await app.register(signInEventRoutes);
  await app.register(sessionRoutes);
  await app.register(auditEventRoutes);
  await app.register(roleAssignmentRoutes);
  await app.register(accountStateRoutes);
  await app.register(factorRoutes);
  await app.register(accountEmailRoutes);
  await app.register(securityPolicyRoutes);
  await app.register(principalRightsRoutes);
}
