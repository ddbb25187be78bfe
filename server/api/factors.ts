import { actsOnParam } from './containment.js';
import type { FastifyInstance } from 'fastify';
import { clearFactorGuesses, listFactors, removeFactors } from '../accounts/factors.js';
import { recordAudit } from '../accounts/audit.js';
import { assertUser } from './sessions.js';
import { errorResponses, params } from './schemas.js';
import { notFound } from '../errors.js';

/**
 * A person's second factors as support staff see them (docs/CONSOLE.md, "Multi-factor
 * authentication and the account page"): what she has enrolled, never a secret; Reset removes one
 * factor or all (she then signs in with her password alone, or enrols again where her policy
 * requires it), audited on her history. Removing factors is `users:write`: whoever may do it could
 * take the account over with the password.
 */

interface UserParams {
  companyId: string;
  domainId: string;
  userId: string;
}

const factor = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    type: { type: 'string', enum: ['totp', 'webauthn', 'recovery'] },
    label: { type: 'string' },
    createdAt: { type: 'string' },
    lastUsedAt: { type: ['string', 'null'] },
    remaining: { type: 'integer' },
  },
} as const;

export async function factorRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const path = '/companys/:companyId/domainNames/:domainId/users/:userId/factors';
  const tags = ['users'];
  const userOf = (at: UserParams) => ({ companyId: at.companyId, domainId: at.domainId, id: at.userId });

  app.get<{ Params: UserParams }>(
    path,
    {
      config: { permission: 'users:read' },
      schema: { tags, summary: "The user's second factors (authenticator apps, passkeys and keys, recovery codes), without secrets", params: params('companyId', 'domainId', 'userId'), response: { 200: { type: 'array', items: factor }, ...errorResponses } },
    },
    async (request) => {
      await assertUser(db, request.params);
      return listFactors(db, userOf(request.params));
    },
  );

  const remove = async (at: UserParams, factorId?: string) =>
    db.transaction(async (tx) => {
      await assertUser(tx, at);
      const removed = await removeFactors(tx, userOf(at), factorId);
      if (factorId && removed.length === 0) throw notFound(`factor ${factorId}`);
      await clearFactorGuesses(tx, userOf(at));
      // her account page sessions end too: they may have been opened with a factor now removed
      await tx.query(`DELETE FROM account_sessions WHERE company_id = $1 AND domain_id = $2 AND user_id = $3`, [at.companyId, at.domainId, at.userId]);
      await recordAudit(tx, {
        companyId: at.companyId,
        domainId: at.domainId,
        resourceType: 'users',
        resourceId: at.userId,
        action: 'resetFactors',
        changes: { factors: { before: removed.map((f) => `${f.type}: ${f.label}`), after: null } },
      });
      return listFactors(tx, userOf(at));
    });

  app.delete<{ Params: UserParams }>(
    path,
    {
      config: { permission: 'users:write', acts: actsOnParam('user', 'userId') },
      schema: { tags, summary: "Removes all the user's second factors; the factors left (none)", params: params('companyId', 'domainId', 'userId'), response: { 200: { type: 'array', items: factor }, ...errorResponses } },
    },
    async (request) => remove(request.params),
  );

  app.delete<{ Params: UserParams & { factorId: string } }>(
    `${path}/:factorId`,
    {
      config: { permission: 'users:write', acts: actsOnParam('user', 'userId') },
      schema: {
        tags,
        summary: "Removes one of the user's second factors; the factors left",
        params: { type: 'object', required: ['companyId', 'domainId', 'userId', 'factorId'], properties: { ...params('companyId', 'domainId', 'userId').properties, factorId: { type: 'string', maxLength: 100 } } },
        response: { 200: { type: 'array', items: factor }, ...errorResponses },
      },
    },
    async (request) => remove(request.params, request.params.factorId),
  );
}
