import type { FastifyInstance } from 'fastify';
import { badRequest, HttpError, notFound } from '../errors.js';
import { randomAlphanumeric, sha256 } from '../ids.js';
import { inScope, locateRecords } from './guard.js';
import { errorResponses } from './schemas.js';

/** Longest grace period an administrator may give the old secret: 30 days. */
export const MAX_GRACE_SECONDS = 2592000;

/**
 * Secret rotation: a new client secret (shown once) replaces the stored one; the old one keeps
 * working for graceSeconds so that deployed clients can be switched over without downtime. Only one
 * previous secret is kept: rotating again ends the grace of the one before.
 */
export async function applicationSecretRoutes(app: FastifyInstance) {
  const { db, config } = app.ctx;

  app.post<{ Params: { id: string }; Body: { graceSeconds?: number } }>(
    '/application/:id/secret',
    {
      config: { permission: 'applications:secrets', locate: locateRecords('applications', 'id') },
      schema: {
        tags: ['applications'],
        // the body is optional (server/inputChecks.ts makes a missing or empty one {})
        summary: 'Rotate the client secret; the previous one keeps working for graceSeconds (the body may be left out: no grace)',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } } },
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { graceSeconds: { type: 'integer', minimum: 0, maximum: MAX_GRACE_SECONDS, default: 0 } },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              client_id: { type: 'string' },
              client_secret: { type: 'string', description: 'the new secret: shown once, never again' },
              previousSecretExpiresAt: { type: ['string', 'null'], description: 'ISO time until which the old secret works; null: it stopped now' },
            },
          },
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const secret = randomAlphanumeric(32);
      const grace = request.body?.graceSeconds ?? 0;
      // a transaction, as every write of the API: the audit trail's record is written in it (server/accounts/audit.ts)
      const { rows } = await db.transaction((tx) => tx.query<{ id: string; previousSecretExpiresAt: Date | null }>(
        `UPDATE applications t
         SET previous_secret_hash = CASE WHEN $3::int > 0 THEN t.client_secret_hash END,
             previous_secret_expires_at = CASE WHEN $3::int > 0 AND t.client_secret_hash IS NOT NULL THEN now() + make_interval(secs => $3::int) END,
             client_secret_hash = $2,
             updated_at = now()
         WHERE t.id = $1 AND ${inScope('t.company_id', '$4')} AND t.status <> 'deleted' AND t.id <> $5
         RETURNING t.id, t.previous_secret_expires_at AS "previousSecretExpiresAt"`,
        [request.params.id, sha256(secret), grace, request.principal.companyId, config.consoleClientId],
      ));
      const row = rows[0];
      if (!row) {
        // A soft-deleted application signs nobody in; a new secret for it would be a dead end.
        const found = await db.query(`SELECT 1 FROM applications t WHERE t.id = $1 AND ${inScope('t.company_id', '$2')}`, [
          request.params.id,
          request.principal.companyId,
        ]);
        // the console signs in with PKCE alone; a secret given to it would be a door nobody watches (docs/CONSOLE.md, "Applications")
        if (found.rowCount > 0 && request.params.id === config.consoleClientId) {
          throw badRequest(`${request.params.id} is this console's own application: it is a public client and has no secret to rotate`).as('secret.consolePublic', { id: request.params.id });
        }
        if (found.rowCount > 0) throw new HttpError(409, `application ${request.params.id} is deleted: recover it before rotating its secret`).as('secret.applicationDeleted', { id: request.params.id });
        throw notFound(`application ${request.params.id}`);
      }
      const expires = row.previousSecretExpiresAt;
      return { client_id: row.id, client_secret: secret, previousSecretExpiresAt: expires ? new Date(expires).toISOString() : null };
    },
  );
}
