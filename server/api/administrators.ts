import type { FastifyInstance } from 'fastify';
import { activeAdministrators, MAX_LISTED } from '../accounts/administrators.js';
import { ADMIN_GROUP } from '../accounts/tokens.js';
import { errorResponses, params } from './schemas.js';

/** The domain's active administrators (the rule and the walk: server/accounts/administrators.ts). */
export async function administratorRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const list = {
    type: 'array',
    items: {
      type: 'object',
      properties: { id: { type: 'string' }, username: { type: 'string' }, displayName: { type: 'string' }, email: { type: 'string' } },
    },
  } as const;
  app.get<{ Params: { companyId: string; domainId: string } }>(
    '/companys/:companyId/domainNames/:domainId/administrators',
    {
      config: { permission: 'groups:read' },
      schema: {
        tags: ['groups'],
        description: `The domain's active administrators: active users in the active ${ADMIN_GROUP} group, directly or through nested active groups (at most ${MAX_LISTED})`,
        params: params('companyId', 'domainId'),
        response: { 200: list, ...errorResponses },
      },
    },
    async (request) => activeAdministrators(db, request.params.companyId, request.params.domainId),
  );
}
