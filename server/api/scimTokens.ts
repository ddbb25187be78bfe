import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { badRequest, HttpError, notFound } from '../errors.js';
import { randomAlphanumeric, sha256 } from '../ids.js';
import { recordAudit } from '../accounts/audit.js';
import { addListRoute, type ResourceDefinition } from './resource.js';
import { errorResponses, id, params, requiredText } from './schemas.js';

/**
 * A domain's SCIM tokens and the last calls of its provisioning clients (docs/CONSOLE.md,
 * "Provisioning (SCIM)"): a token is made here, shown once in the answer that creates it, kept as
 * its SHA-256 (the SCIM server, server/scim/auth.ts, finds it by that hash), and revoked by DELETE
 * (the record stays, with revokedAt). A record may instead name an application of the domain
 * (`clientId`, migration 42): that application may then call the SCIM server with access tokens
 * from client credentials, until the record is revoked; no token is made for it. scim_tokens has
 * no audit trigger: create and revoke record themselves. Neither token nor hash ever leaves the
 * server after the create.
 */

/** What every token starts with: a leaked one is recognisable (secret scanners, logs). */
export const SCIM_TOKEN_PREFIX = 'scim_';

/** A domain has at most this many tokens that still work: one per provisioning client is the use. */
const MAX_LIVE_TOKENS = 50;

const creator = `coalesce((SELECT u.display_name FROM users u WHERE u.company_id = t.created_by ->> 'companyId' AND u.domain_id = t.created_by ->> 'domainId' AND u.id = t.created_by ->> 'userId'), t.created_by ->> 'userId')`;

export const scimTokenDefinition = {
  name: 'scimTokens',
  permission: 'scim',
  label: 'SCIM token',
  table: 'scim_tokens t',
  fields: {
    id: { column: 't.id' },
    name: { column: 't.name' },
    clientId: { column: 't.client_id', type: 'nullableText' },
    createdAt: { column: 't.created_at', time: true },
    createdBy: { column: creator, type: 'nullableText', listed: false },
    lastUsedAt: { column: 't.last_used_at', type: 'nullableText', time: true },
    revokedAt: { column: 't.revoked_at', type: 'nullableText', time: true },
  },
  search: 't.name',
  key: ['t.company_id', 't.domain_id', 't.id'],
  defaultSort: 'createdAt',
  defaultOrder: 'DESC',
} satisfies ResourceDefinition;

export const scimCallDefinition = {
  name: 'scimCalls',
  permission: 'scim',
  label: 'SCIM call',
  table: 'scim_calls t',
  fields: {
    id: { column: 't.id' },
    at: { column: 't.at', time: true },
    method: { column: 't.method' },
    path: { column: 't.path', listed: false },
    status: { column: 't.status', type: 'integer' },
    tokenId: { column: 't.token_id', type: 'nullableText' },
    clientId: { column: 't.client_id', type: 'nullableText' },
    detail: { column: 't.detail', type: 'nullableText', listed: false },
  },
  key: ['t.company_id', 't.domain_id', 't.id'],
  defaultSort: 'at',
  defaultOrder: 'DESC',
} satisfies ResourceDefinition;

type DomainParams = { companyId: string; domainId: string };
const scope = { params: ['companyId', 'domainId'], where: ['t.company_id = $1', 't.domain_id = $2'] };
const tokenShape = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    clientId: { type: ['string', 'null'], description: 'the application allowed to use client credentials instead of a token' },
    token: { type: 'string', description: 'shown in this answer only, never again (none for an application)' },
    createdAt: { type: 'string' },
    createdBy: { type: ['string', 'null'] },
    lastUsedAt: { type: ['string', 'null'] },
    revokedAt: { type: ['string', 'null'] },
  },
} as const;

/** A new token: 32 random bytes, base64url, behind the prefix. */
export const newScimToken = () => `${SCIM_TOKEN_PREFIX}${crypto.randomBytes(32).toString('base64url')}`;

export async function scimTokenRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const path = '/companys/:companyId/domainNames/:domainId/scimTokens';
  const tags = ['scim'];
  const select = `t.id, t.name, t.client_id AS "clientId", t.created_at AS "createdAt", ${creator} AS "createdBy", t.last_used_at AS "lastUsedAt", t.revoked_at AS "revokedAt"`;

  addListRoute(app, scimTokenDefinition, { path, tags, scope, summary: "The domain's SCIM tokens, newest first (never the token itself)" });
  addListRoute(app, scimCallDefinition, {
    path: '/companys/:companyId/domainNames/:domainId/scimCalls',
    tags,
    scope,
    summary: 'The last calls of the domain\'s provisioning clients to its SCIM server, newest first (the newest 500 are kept; never a body or a token)',
  });

  app.post<{ Params: DomainParams; Body: { name: string; clientId?: string } }>(
    path,
    {
      config: { permission: 'scim:write' },
      schema: {
        tags,
        summary:
          'Creates a SCIM token of the domain (the answer is the only place the token is ever shown), or, with clientId, allows that application of the domain to provision with client-credentials access tokens',
        params: params('companyId', 'domainId'),
        body: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: requiredText(100), clientId: { ...id, description: 'an application of this domain; no token is made' } } },
        response: { 201: tokenShape, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { companyId, domainId } = request.params;
      const caller = request.principal;
      const { clientId } = request.body;
      const token = clientId ? undefined : newScimToken();
      const tokenId = randomAlphanumeric(20);
      const created = await db.transaction(async (tx) => {
        const { rows: live } = await tx.query<{ n: number; client: boolean }>(
          `SELECT count(*)::int AS n, coalesce(bool_or(client_id = $3), false) AS client FROM scim_tokens WHERE company_id = $1 AND domain_id = $2 AND revoked_at IS NULL`,
          [companyId, domainId, clientId ?? null],
        );
        if (live[0].n >= MAX_LIVE_TOKENS) throw new HttpError(409, `name: the domain already has ${MAX_LIVE_TOKENS} SCIM tokens that work: revoke one first`).as('scimToken.tooMany', { limit: MAX_LIVE_TOKENS });
        if (clientId) {
          if (live[0].client) throw new HttpError(409, `clientId: application ${clientId} may already provision this domain`).as('scimToken.clientTaken', { clientId });
          const { rowCount } = await tx.query(`SELECT 1 FROM applications WHERE id = $1 AND company_id = $2 AND domain_id = $3 AND status <> 'deleted'`, [clientId, companyId, domainId]);
          if (!rowCount) throw badRequest(`clientId: there is no application ${clientId} in this domain`).as('scimToken.noApplication', { clientId });
        }
        const { rows } = await tx.query<Record<string, unknown>>(
          `INSERT INTO scim_tokens AS t (company_id, domain_id, id, name, token_hash, client_id, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb) RETURNING ${select}`,
          [companyId, domainId, tokenId, request.body.name.trim(), token ? sha256(token) : null, clientId ?? null, JSON.stringify({ userId: caller.userId, companyId: caller.companyId, domainId: caller.domainId })],
        );
        const changes = { name: { after: request.body.name.trim() }, ...(clientId ? { clientId: { after: clientId } } : { token: { hidden: true } }) };
        await recordAudit(tx, { companyId, domainId, resourceType: 'scimTokens', resourceId: tokenId, action: 'create', changes });
        return rows[0];
      });
      reply.status(201);
      return token ? { ...created, token } : created;
    },
  );

  app.delete<{ Params: DomainParams & { tokenId: string } }>(
    `${path}/:tokenId`,
    {
      config: { permission: 'scim:write' },
      schema: {
        tags,
        summary: 'Revokes a SCIM token at once (its record stays, with revokedAt); revoking one already revoked changes nothing',
        params: params('companyId', 'domainId', 'tokenId'),
        response: { 200: tokenShape, ...errorResponses },
      },
    },
    async (request) => {
      const { companyId, domainId, tokenId } = request.params;
      return db.transaction(async (tx) => {
        const { rows } = await tx.query<Record<string, unknown>>(
          `UPDATE scim_tokens t SET revoked_at = now() WHERE t.company_id = $1 AND t.domain_id = $2 AND t.id = $3 AND t.revoked_at IS NULL RETURNING ${select}`,
          [companyId, domainId, tokenId],
        );
        if (rows[0]) {
          await recordAudit(tx, { companyId, domainId, resourceType: 'scimTokens', resourceId: tokenId, action: 'revoke', changes: { revokedAt: { after: rows[0].revokedAt } } });
          return rows[0];
        }
        const { rows: already } = await tx.query<Record<string, unknown>>(`SELECT ${select} FROM scim_tokens t WHERE t.company_id = $1 AND t.domain_id = $2 AND t.id = $3`, [companyId, domainId, tokenId]);
        if (!already[0]) throw notFound(`SCIM token ${tokenId}`);
        return already[0];
      });
    },
  );
}
