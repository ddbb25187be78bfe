import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { badRequest, notFound } from '../errors.js';
import { recordAudit } from '../accounts/audit.js';
import { actsOnParam } from './containment.js';
import { addListRoute, type RecordOf, type ResourceDefinition, recordSchema, selectList } from './resource.js';
import { assertUser } from './sessions.js';
import { errorResponses, params } from './schemas.js';

/**
 * A user's linked identities (docs/CONSOLE.md, "Connections"): her accounts at upstream identity
 * providers, each a connection and the IdP's subject, made by the sign-in (server/upstream/). Read
 * with users:read; Unlink is a write to the person (users:write and the containment rule): after it,
 * that upstream account no longer signs her in, and a new link needs her proof again.
 */
export const identityDefinition = {
  name: 'identities',
  permission: 'users',
  label: 'identity',
  // a connection shared from above is another domain's row: joined by its own company, domain and id
  table: `user_identities t JOIN connections c ON c.company_id = t.connection_company_id AND c.domain_id = t.connection_domain_id AND c.id = t.connection_id`,
  fields: {
    // '<connectionId>:<subject>': a connection id has no colon, so the first one splits it (a client URL-encodes it in a path)
    id: { column: `t.connection_id || ':' || t.subject` },
    connectionId: { column: 't.connection_id' },
    connectionName: { column: 'c.display_name' },
    protocol: { column: 'c.protocol' },
    subject: { column: 't.subject' },
    email: { column: 't.email', type: 'nullableText' },
    createdAt: { column: 't.created_at', time: true },
    lastUsedAt: { column: 't.last_used_at', type: 'nullableText', time: true },
  },
  key: ['t.connection_company_id', 't.connection_domain_id', 't.connection_id', 't.subject'],
  defaultSort: 'createdAt',
} satisfies ResourceDefinition;

export type Identity = RecordOf<typeof identityDefinition>;

type UserParams = { companyId: string; domainId: string; userId: string };
type IdentityParams = UserParams & { identityId: string };

const SELECT = selectList(identityDefinition);
const OWN = 't.company_id = $1 AND t.domain_id = $2 AND t.user_id = $3';

/** Unlinks one identity of the user (404 naming it when she has no such identity), with its audit record. */
export async function unlinkIdentity(db: Queryable, at: UserParams, identityId: string): Promise<Identity> {
  const colon = identityId.indexOf(':');
  if (colon < 1) throw badRequest('identityId: <connectionId>:<subject>').as('identity.idForm');
  const [connectionId, subject] = [identityId.slice(0, colon), identityId.slice(colon + 1)];
  const { rows } = await db.query<Identity>(
    `SELECT ${SELECT} FROM ${identityDefinition.table} WHERE ${OWN} AND t.connection_id = $4 AND t.subject = $5 FOR UPDATE OF t`,
    [at.companyId, at.domainId, at.userId, connectionId, subject],
  );
  if (rows.length === 0) throw notFound(`identity ${identityId} of user ${at.userId}`);
  await db.query(`DELETE FROM user_identities t WHERE ${OWN} AND t.connection_id = $4 AND t.subject = $5`, [at.companyId, at.domainId, at.userId, connectionId, subject]);
  await recordAudit(db, {
    companyId: at.companyId,
    domainId: at.domainId,
    resourceType: 'users',
    resourceId: at.userId,
    action: 'unlinkIdentity',
    changes: { identity: { before: { connectionId, connectionName: rows[0].connectionName, subject } } },
  });
  return rows[0];
}

export async function identityRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const path = '/companys/:companyId/domainNames/:domainId/users/:userId/identities';
  const tags = ['users'];
  const userParams = (request: { params: unknown }) => request.params as UserParams;

  addListRoute(app, identityDefinition, {
    path,
    tags,
    summary: "The user's linked identities: her accounts at upstream identity providers (connection, subject, last used)",
    scope: { params: ['companyId', 'domainId', 'userId'], where: [OWN] },
    // no rows: a user without identities, or no such user in the domain
    whenEmpty: (request) => assertUser(db, userParams(request)),
  });

  const identityParams = params('companyId', 'domainId', 'userId');
  app.delete<{ Params: IdentityParams }>(
    `${path}/:identityId`,
    {
      config: { permission: 'users:write', acts: actsOnParam('user', 'userId') },
      schema: {
        tags,
        summary: 'Unlinks an identity: that upstream account no longer signs the user in',
        params: { ...identityParams, required: [...identityParams.required, 'identityId'], properties: { ...identityParams.properties, identityId: { type: 'string', minLength: 3, maxLength: 1200 } } },
        response: { 200: recordSchema(identityDefinition), ...errorResponses },
      },
    },
    async (request) =>
      db.transaction(async (tx) => {
        const { identityId, ...at } = request.params;
        await assertUser(tx, at);
        return unlinkIdentity(tx, at, identityId);
      }),
  );
}
