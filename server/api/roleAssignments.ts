import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { assertContains } from './containment.js';
import { accessColumns, inScope } from './guard.js';
import { crudRoutes, type RecordOf, type ResourceDefinition, selectList, type WriteContext } from './resource.js';
import { allPermissions, OWNER, permissionsOf, ROLE_IDS, ROLES } from './roles.js';
import { errorResponses, id } from './schemas.js';

/**
 * Who holds which role where (docs/CONSOLE.md, "Roles"): a role held by a user or a group of a
 * domain, over a company and its subtree or over one of its domains. Listed, given and taken back
 * under `/companys/{companyId}/roleAssignments` (the company the role is held over, or one above it
 * for the list); each change is an audit record of the holder (migration 20).
 */
export const roleAssignmentDefinition = {
  name: 'roleAssignments',
  permission: 'roles',
  label: 'role assignment',
  table: 'role_assignments t',
  fields: {
    id: { column: 't.id' },
    role: { column: 't.role', input: { type: 'string', enum: ROLE_IDS } },
    holderType: { column: 't.holder_type', input: { type: 'string', enum: ['user', 'group'] } },
    holderId: { column: 't.holder_id', input: id },
    holderCompanyId: { column: 't.company_id', input: id },
    holderDomainId: { column: 't.domain_id', input: id },
    holderName: {
      column: `coalesce((SELECT u.display_name FROM users u WHERE t.holder_type = 'user' AND u.company_id = t.company_id AND u.domain_id = t.domain_id AND u.id = t.holder_id),
        (SELECT g.display_name FROM groups g WHERE t.holder_type = 'group' AND g.company_id = t.company_id AND g.domain_id = t.domain_id AND g.id = t.holder_id), t.holder_id)`,
      listed: false,
    },
    companyId: { column: 't.scope_company_id' },
    domainId: { column: 't.scope_domain_id', type: 'nullableText', input: { anyOf: [id, { type: 'null' }] } },
    createdAt: { column: 't.created_at' },
  },
  key: ['t.id'],
  defaultSort: 'createdAt',
  defaultOrder: 'DESC',
} satisfies ResourceDefinition;

export type RoleAssignment = RecordOf<typeof roleAssignmentDefinition>;
type AssignmentBody = Pick<RoleAssignment, 'role' | 'holderType' | 'holderId' | 'holderCompanyId' | 'holderDomainId'> & { domainId?: string | null };

const SELECT = selectList(roleAssignmentDefinition);

/** The last Owner over the root company's subtree cannot be taken away: nobody could give roles again. */
async function assertNotLastOwner(db: Queryable, assignment: RoleAssignment) {
  if (assignment.role !== OWNER || assignment.domainId !== null) return;
  // one row when the assignment is over the root company and no other Owner is
  const { rowCount } = await db.query(
    `SELECT 1 FROM companies c WHERE c.id = $2 AND c.type = 'root' AND NOT EXISTS (
       SELECT 1 FROM role_assignments a WHERE a.role = 'owner' AND a.scope_domain_id IS NULL AND a.scope_company_id = c.id AND a.id <> $1)`,
    [assignment.id, assignment.companyId],
  );
  if (rowCount > 0) {
    throw new HttpError(409, 'This is the last Owner of the provider: give the Owner role to someone else before taking it from this one').as('last_owner');
  }
}

const rules = {
  async create(db: Queryable, { caller, params }: WriteContext<{ companyId: string }>, body: AssignmentBody): Promise<RoleAssignment> {
    const scopeCompany = params.companyId;
    const scopeDomain = body.domainId ?? null;
    if (scopeDomain !== null) {
      const domain = await db.query(`SELECT 1 FROM domains WHERE company_id = $1 AND id = $2`, [scopeCompany, scopeDomain]);
      if (domain.rowCount === 0) throw notFound(`domain ${scopeDomain}`);
    }
    // the holder: a user or group the caller can reach, of the company the role is over or one above it
    const table = body.holderType === 'user' ? 'users' : 'groups';
    const { rows } = await db.query<{ above: boolean }>(
      `SELECT (SELECT h.company_id = ANY (c.ancestors) FROM companies c WHERE c.id = $4) AS above
       FROM ${table} h WHERE h.company_id = $1 AND h.domain_id = $2 AND h.id = $3 AND ${inScope('h.company_id', '$5')}`,
      [body.holderCompanyId, body.holderDomainId, body.holderId, scopeCompany, caller.companyId],
    );
    if (!rows[0]) throw notFound(`${body.holderType} ${body.holderId}`);
    if (!rows[0].above) throw badRequest(`companyId: a role is held over the holder's own company (${body.holderCompanyId}) or a company below it`).as('role.outsideHolder', { company: body.holderCompanyId.slice(0, 100) });
    // nobody gives more than they hold, nor to someone who holds more than they do
    await assertContains(db, caller, { companyId: body.holderCompanyId, domainId: body.holderDomainId, principals: [{ type: body.holderType as 'user' | 'group', id: body.holderId }] }, [
      { role: body.role, companyId: scopeCompany, domainId: scopeDomain },
    ]);
    try {
      const inserted = await db.query<RoleAssignment>(
        `INSERT INTO role_assignments AS t (company_id, domain_id, holder_type, holder_id, role, scope_company_id, scope_domain_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${SELECT}`,
        [body.holderCompanyId, body.holderDomainId, body.holderType, body.holderId, body.role, scopeCompany, scopeDomain],
      );
      return inserted.rows[0];
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new HttpError(409, `${body.holderType} ${body.holderId} already holds ${body.role} there`).as(
          body.holderType === 'user' ? 'role.userHolds' : 'role.groupHolds',
          { id: body.holderId.slice(0, 100), role: body.role.slice(0, 100) },
        );
      throw error;
    }
  },

  async remove(db: Queryable, { params, caller }: WriteContext<{ companyId: string }>, ids: string[]): Promise<RoleAssignment[]> {
    const removed: RoleAssignment[] = [];
    for (const assignmentId of [...new Set(ids)]) {
      const { rows } = await db.query<RoleAssignment>(`SELECT ${SELECT} FROM role_assignments t WHERE t.id = $1 AND ${inScope('t.scope_company_id', '$2')} FOR UPDATE`, [
        assignmentId,
        params.companyId,
      ]);
      if (!rows[0]) throw notFound(`role assignment ${assignmentId}`);
      const taken = rows[0];
      // taking a role back is giving it: only where the caller holds it, from someone she contains
      await assertContains(db, caller, { companyId: taken.holderCompanyId, domainId: taken.holderDomainId, principals: [{ type: taken.holderType as 'user' | 'group', id: taken.holderId }] }, [
        { role: taken.role, companyId: taken.companyId, domainId: taken.domainId },
      ]);
      await assertNotLastOwner(db, taken);
      await db.query(`DELETE FROM role_assignments WHERE id = $1`, [assignmentId]);
      removed.push(rows[0]);
    }
    return removed;
  },
};

export async function roleAssignmentRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const tags = ['roles'];

  await crudRoutes<RoleAssignment, AssignmentBody, { companyId: string }>(roleAssignmentDefinition, {
    tags,
    path: '/companys/:companyId/roleAssignments',
    idParam: 'assignmentId',
    // assignments over this company or any company below it
    scope: { params: ['companyId'], where: [inScope('t.scope_company_id', '$1')] },
    rules,
    bodies: {
      create: {
        type: 'object',
        required: ['role', 'holderType', 'holderId', 'holderCompanyId', 'holderDomainId'],
        additionalProperties: false,
        properties: {
          role: { type: 'string', enum: ROLE_IDS },
          holderType: { type: 'string', enum: ['user', 'group'] },
          holderId: id,
          holderCompanyId: id,
          holderDomainId: id,
          domainId: { anyOf: [id, { type: 'null' }], description: 'one domain of the company; left out or null: the company and its subtree' },
        },
      },
    },
    routes: ['list', 'get', 'create', 'remove', 'removeList'],
    // taking a role back is giving roles too (an Owner or an Administrator, from people she contains)
    permissions: { purge: 'roles:write' },
    summaries: {
      list: 'Who holds which role over this company, its domains and the companies below it',
      create: 'Gives a role to a user or group, over this company and its subtree or over one of its domains',
      remove: 'Takes a role back (the last Owner of the provider stays)',
    },
  })(app);

  const roleJson = {
    type: 'object',
    properties: { id: { type: 'string' }, name: { type: 'string' }, description: { type: 'string' }, permissions: { type: 'array', items: { type: 'string' } } },
  };
  app.get(
    '/roles',
    {
      config: { permission: 'any' },
      schema: {
        tags,
        summary: 'The roles and the permissions each gives (the same for every caller)',
        response: { 200: { type: 'object', properties: { roles: { type: 'array', items: roleJson }, permissions: { type: 'array', items: { type: 'string' } } } }, ...errorResponses },
      },
    },
    async () => ({
      roles: ROLES.map((role) => ({ id: role.id, name: role.name, description: role.description, permissions: permissionsOf([role.id]) })),
      permissions: allPermissions(),
    }),
  );

  app.get<{ Querystring: { companyId: string; domainId?: string } }>(
    '/me/permissions',
    {
      config: { permission: 'any' },
      schema: {
        tags,
        summary: "The caller's roles and permissions over a company (and one of its domains): what the console shows and enables",
        querystring: { type: 'object', required: ['companyId'], additionalProperties: false, properties: { companyId: id, domainId: id } },
        response: {
          200: {
            type: 'object',
            properties: { companyId: { type: 'string' }, domainId: { type: ['string', 'null'] }, roles: { type: 'array', items: { type: 'string' } }, permissions: { type: 'array', items: { type: 'string' } } },
          },
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { companyId, domainId } = request.query;
      const check = accessColumns(request.principal, companyId, domainId, 1, 'any');
      const { rows } = await db.stable.query<{ access: string[] }>(`SELECT ${check.sql}`, check.params);
      const held = check.assert(rows[0]);
      return { companyId, domainId: domainId ?? null, roles: held, permissions: permissionsOf(held) };
    },
  );
}
