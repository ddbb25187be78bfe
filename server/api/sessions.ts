import { actsOnParam } from './containment.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queryable } from '../db/index.js';
import { notFound } from '../errors.js';
import { recordAudit } from '../accounts/audit.js';
import { addListRoute, crudRoutes, type RecordOf, type ResourceDefinition, selectList, type WriteContext } from './resource.js';
import { errorResponses, params } from './schemas.js';

/**
 * A user's sessions (docs/CONSOLE.md, "Sign-ins and rights", Sessions): the live grants of one user,
 * one per sign-in into an application, each revocable, and "sign out everywhere". Revoking a grant
 * ends its refresh tokens (every refresh joins its grant, server/oauth/adapter.ts) and makes
 * its access tokens answer 401 at the next management API call (api_access, migration 7). Grants
 * without a user (none are made for client_credentials) are nobody's session.
 */
export const sessionDefinition = {
  name: 'sessions',
  permission: 'sessions',
  label: 'session',
  table: 'oauth_grants t LEFT JOIN applications a ON a.id = t.client_id',
  fields: {
    id: { column: 't.id' },
    clientId: { column: 't.client_id' },
    // null once the application is purged
    clientName: { column: 'a.client_name', type: 'nullableText' },
    // the sign-in: the session's first use
    createdAt: { column: 't.created_at' },
    lastUsedAt: { column: 't.last_used_at' },
    ip: { column: 't.ip', type: 'nullableText' },
    lastIp: { column: 't.last_ip', type: 'nullableText' },
    userAgent: { column: 't.user_agent', type: 'nullableText' },
    scope: { column: 't.scope' },
  },
  key: ['t.id'],
  // most recently used first, the order of the oauth_grants_sessions index (migration 16)
  defaultSort: 'lastUsedAt',
  defaultOrder: 'DESC',
} satisfies ResourceDefinition;

export type Session = RecordOf<typeof sessionDefinition>;

/**
 * The rule of a live session, on a grant t (not revoked) and its application a, under the current
 * settings, with the management API's access token lifetime (ACCESS_TOKEN_TTL) as `ttl`. A grant is
 * live while it could still be behind a valid token or produce one:
 * - it issued tokens (or was signed in with) within the lifetime of the access tokens it gets: ttl
 *   for the management API; for an API, its token_expiration, or token_expiration_browser when the
 *   application is public (SPA, native or without a secret), as server/oauth/provider.ts sets them;
 * - or it holds a refresh token that can still be spent: one not yet rotated (a rotated one only
 *   lasts the reuse interval) and not expired, while the family is within the application's
 *   absolute lifetime when the application sets one (as server/oauth/adapter.ts reads it).
 * A grant that is neither is dormant: it is not listed, but revoking it (one by one or with the
 * others) still works, since a settings change could wake it.
 */
const live = (ttl: string) => `(
  t.last_used_at > now() - make_interval(secs => CASE WHEN t.resource IS NULL THEN ${ttl} ELSE
    (SELECT CASE WHEN a.app_type IN ('SPA', 'native') OR a.client_secret_hash IS NULL THEN x.token_expiration_browser ELSE x.token_expiration END
     FROM apis x WHERE x.company_id = t.company_id AND x.domain_id = t.domain_id AND x.identifier = t.resource AND x.status = 'active') END)
  OR (EXISTS (SELECT 1 FROM oidc_payloads r WHERE r.grant_id = t.id AND r.model = 'RefreshToken' AND r.consumed_at IS NULL AND r.expires_at > now())
      AND (a.refresh_absolute_expiration IS NOT TRUE OR t.created_at > now() - make_interval(secs => a.refresh_absolute_lifetime))))`;

/** A session's id is its grant's: oidc-provider's (base64url) or ours (alphanumeric). */
const SESSION_ID = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,128}$', maxLength: 128 } as const;

type UserParams = { companyId: string; domainId: string; userId: string };

const SELECT = selectList(sessionDefinition);
/** The user's grants, not yet revoked: the ones a revocation may end. */
const OWN = 't.company_id = $1 AND t.domain_id = $2 AND t.user_id = $3 AND t.revoked_at IS NULL';

/** 404 unless the domain has this user (active or not). */
export async function assertUser(db: Queryable, { companyId, domainId, userId }: UserParams) {
  const { rows } = await db.query(`SELECT 1 FROM users WHERE company_id = $1 AND domain_id = $2 AND id = $3`, [companyId, domainId, userId]);
  if (rows.length === 0) throw notFound(`user ${userId}`);
}

/** Every write of sessions goes through here; each runs in the caller's transaction with its audit record. */
export const sessions = {
  /**
   * Revokes these sessions of the user, all or none: 404 naming the first one that is not a
   * session of this user that is still in force (unknown, already revoked, someone else's). One
   * audit record for the call.
   */
  async revoke(db: Queryable, { params: at }: WriteContext<UserParams>, sessionIds: string[]): Promise<Session[]> {
    const ids = [...new Set(sessionIds)];
    const { rows } = await db.query<Session>(
      `WITH revoked AS (UPDATE oauth_grants t SET revoked_at = now() WHERE ${OWN} AND t.id = ANY ($4) RETURNING t.*)
       SELECT ${SELECT} FROM revoked t LEFT JOIN applications a ON a.id = t.client_id`,
      [at.companyId, at.domainId, at.userId, ids],
    );
    const revoked = ids.map((sessionId) => {
      const row = rows.find((candidate) => candidate.id === sessionId);
      // the throw rolls the transaction back: the others stay in force too
      if (!row) throw notFound(`session ${sessionId}`);
      return row;
    });
    await recordAudit(db, {
      companyId: at.companyId,
      domainId: at.domainId,
      resourceType: 'users',
      resourceId: at.userId,
      action: 'revokeSession',
      changes: ids.length === 1 ? { session: { before: ids[0] } } : { sessions: { before: ids } },
    });
    return revoked;
  },

  /**
   * Revokes every grant of the user still in force, dormant ones included (see `live`), and answers
   * how many live sessions that ended: the number the list showed. 404 for an unknown user.
   */
  async signOutEverywhere(db: Queryable, at: UserParams, ttl: number): Promise<{ revoked: number }> {
    const { rows } = await db.query<{ known: boolean; revoked: number }>(
      `WITH revoked AS (UPDATE oauth_grants t SET revoked_at = now() WHERE ${OWN} RETURNING t.*)
       SELECT EXISTS (SELECT 1 FROM users u WHERE u.company_id = $1 AND u.domain_id = $2 AND u.id = $3) AS known,
              (SELECT count(*) FROM revoked t LEFT JOIN applications a ON a.id = t.client_id WHERE ${live('$4::integer')})::integer AS revoked`,
      [at.companyId, at.domainId, at.userId, ttl],
    );
    if (!rows[0].known) throw notFound(`user ${at.userId}`);
    const { revoked } = rows[0];
    await recordAudit(db, {
      companyId: at.companyId,
      domainId: at.domainId,
      resourceType: 'users',
      resourceId: at.userId,
      action: 'signOutEverywhere',
      changes: { sessions: { before: revoked } },
    });
    return { revoked };
  },
};

const PATH = '/companys/:companyId/domainNames/:domainId/users/:userId/sessions';
const TAGS = ['sessions'];

export async function sessionRoutes(app: FastifyInstance) {
  const { db, config } = app.ctx;
  const userParams = (request: FastifyRequest) => request.params as UserParams;

  addListRoute(app, sessionDefinition, {
    path: PATH,
    tags: TAGS,
    summary: "The user's live sessions (sign-ins into applications), most recently used first",
    scope: {
      params: ['companyId', 'domainId', 'userId'],
      where: [OWN, live('$4::integer')],
      values: (request) => {
        const { companyId, domainId, userId } = userParams(request);
        return [companyId, domainId, userId, config.accessTokenTtl];
      },
    },
    // no rows: a user without live sessions, or no such user in the domain
    whenEmpty: (request) => assertUser(db, userParams(request)),
  });

  await app.register(
    crudRoutes<Session, object, UserParams>(sessionDefinition, {
      tags: TAGS,
      path: PATH,
      idParam: 'sessionId',
      idSchema: SESSION_ID,
      scope: { params: ['companyId', 'domainId', 'userId'], where: [OWN] },
      rules: { remove: (tx, at, ids) => sessions.revoke(tx, at, ids) },
      bodies: { removeList: { type: 'array', items: SESSION_ID, minItems: 1, maxItems: 1000 } },
      routes: ['remove', 'removeList'],
      acts: actsOnParam('user', 'userId'),
      permissions: { purge: 'sessions:revoke' },
      summaries: {
        remove: 'Revokes one session: its refresh tokens are refused and its access tokens answer 401',
        removeList: 'Revokes the sessions listed (their ids), all or none',
      },
    }),
  );

  app.post(
    '/companys/:companyId/domainNames/:domainId/users/:userId/signOutEverywhere',
    {
      config: { permission: 'sessions:revoke', acts: actsOnParam('user', 'userId') },
      schema: {
        tags: TAGS,
        summary: 'Revokes every session of the user; answers how many live ones ended',
        params: params('companyId', 'domainId', 'userId'),
        // nothing to send: a missing or empty body is {} (server/inputChecks.ts), any other key is a 400 naming it
        body: { type: 'object', additionalProperties: false, properties: {} },
        response: { 200: { type: 'object', properties: { revoked: { type: 'integer' } } }, ...errorResponses },
      },
    },
    async (request) => db.transaction((tx) => sessions.signOutEverywhere(tx, userParams(request), config.accessTokenTtl)),
  );
}
