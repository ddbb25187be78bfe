import type { FastifyInstance } from 'fastify';
import { notFound } from '../errors.js';
import { type PrincipalType, rightsOver } from './containment.js';
import { errorResponses, params } from './schemas.js';

/**
 * Whether the caller may act on a user or group, and change a group's members, with the reason
 * when not (containment.ts; docs/CONSOLE.md, "Roles"): the console greys its controls out from this
 * answer, and the server refuses the same writes whatever the console shows.
 */
export async function principalRightsRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const reason = { type: ['string', 'null'] };
  const response = {
    type: 'object',
    properties: {
      mayActOn: { type: 'boolean' },
      reason,
      membership: { type: 'object', properties: { givesRoles: { type: 'boolean' }, allowed: { type: 'boolean' }, reason } },
    },
  };
  for (const [type, table, param] of [['user', 'users', 'userId'], ['group', 'groups', 'groupId']] as const) {
    app.get<{ Params: { companyId: string; domainId: string } & Record<string, string> }>(
      `/companys/:companyId/domainNames/:domainId/${table}/:${param}/rights`,
      {
        config: { permission: `${table}:read` },
        schema: {
          tags: [table],
          summary: `Whether you may act on this ${type}${type === 'group' ? ' and change its members' : ''}, and why not: what the console greys out`,
          params: params('companyId', 'domainId', param),
          response: { 200: response, ...errorResponses },
        },
      },
      async (request) => {
        const { companyId, domainId } = request.params;
        const id = request.params[param];
        const found = await db.query(`SELECT 1 FROM ${table} WHERE company_id = $1 AND domain_id = $2 AND id = $3`, [companyId, domainId, id]);
        if (found.rowCount === 0) throw notFound(`${type} ${id}`);
        return rightsOver(db, request.principal, { companyId, domainId }, type as PrincipalType, id);
      },
    );
  }
}
