import type { FastifyInstance } from 'fastify';
import type { Principal } from '../context.js';
import type { Queryable } from '../db/index.js';
import { badRequest, HttpError, notFound, uniqueAs } from '../errors.js';
import { listAccess } from './guard.js';
import { type ListQuery, type ListResource, listQuerySchema, parseListQuery, runList, sendList } from './list.js';
import { errorResponses, id, idList, params, requiredText } from './schemas.js';

/** `/domainNames/primary` is a route of its own, so no domain may be called that. */
const RESERVED = new Set(['primary']);

export interface Domain {
  id: string;
  name: string;
  description: string;
  primary: boolean;
}

const SELECT = `t.id, t.name, t.description, t.is_primary AS "primary"`;

const domainResource: ListResource = {
  name: 'domainNames',
  table: 'domains t',
  select: SELECT,
  fields: {
    id: { column: 't.id' },
    name: { column: 't.name' },
    description: { column: 't.description' },
    primary: { column: 't.is_primary', type: 'boolean' },
  },
  search: `(t.name || ' ' || t.description)`,
  key: ['t.company_id', 't.id'],
  defaultSort: 'name',
};

const domainJson = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' }, description: { type: 'string' }, primary: { type: 'boolean' } },
} as const;

const domainBody = {
  type: 'object',
  required: ['name', 'description'],
  additionalProperties: false,
  properties: {
    id,
    name: { ...id, description: 'Domain Name; the id on create' },
    description: requiredText(2000),
    primary: { type: 'boolean', description: 'on create: ignored (the first domain is primary); on update: true makes it the primary domain' },
  },
} as const;

const domainListBody = {
  type: 'array',
  minItems: 1,
  maxItems: 1000,
  items: {
    type: 'object',
    required: ['id'],
    additionalProperties: false,
    properties: { id, name: id, description: requiredText(2000), primary: { type: 'boolean' } },
  },
  description: 'The whole list; exactly one entry with primary true makes that domain the primary one',
} as const;

type DomainBody = { id?: string; name: string; description: string; primary?: boolean };
type DomainPatch = { id: string; name?: string; description?: string; primary?: boolean };

function checkName(name: string) {
  if (RESERVED.has(name.toLowerCase())) throw badRequest(`name: "${name}" is reserved`);
}

async function getDomains(db: Queryable, companyId: string, domainIds: string[]): Promise<Domain[]> {
  const { rows } = await db.query<Domain>(`SELECT ${SELECT} FROM domains t WHERE t.company_id = $1 AND t.id = ANY ($2)`, [companyId, domainIds]);
  return domainIds.map((domainId) => rows.find((row) => row.id === domainId)).filter((row): row is Domain => row !== undefined);
}

async function getDomain(db: Queryable, companyId: string, domainId: string): Promise<Domain> {
  const [domain] = await getDomains(db, companyId, [domainId]);
  if (!domain) throw notFound(`domain ${domainId}`);
  return domain;
}

async function makePrimary(db: Queryable, companyId: string, domainId: string) {
  // the one-primary index is checked row by row: clear the old primary before setting the new one
  await db.query(`UPDATE domains SET is_primary = false, updated_at = now() WHERE company_id = $1 AND is_primary AND id <> $2`, [companyId, domainId]);
  await db.query(`UPDATE domains SET is_primary = true, updated_at = now() WHERE company_id = $1 AND id = $2 AND NOT is_primary`, [companyId, domainId]);
}

/** Every write of a domain goes through here. */
export const domains = {
  /** The company's first domain becomes its primary one; `primary` in the body is ignored. */
  async create(db: Queryable, companyId: string, body: DomainBody): Promise<Domain> {
    const domainId = body.id ?? body.name;
    if (body.id !== undefined && body.id !== body.name) throw badRequest('id must equal name when creating a domain');
    checkName(domainId);
    return uniqueAs(domainId, async () => {
      const { rows } = await db.query<Domain>(
        `INSERT INTO domains (company_id, id, name, description, is_primary)
         VALUES ($1, $2, $2, $3, NOT EXISTS (SELECT 1 FROM domains WHERE company_id = $1))
         RETURNING id, name, description, is_primary AS "primary"`,
        [companyId, domainId, body.description],
      );
      return rows[0];
    });
  },

  /** Describes domains (the name is the id and stays); the one entry with primary true becomes the primary domain. Unknown ids: 404, nothing changed. */
  async update(db: Queryable, companyId: string, patches: DomainPatch[]): Promise<Domain[]> {
    const chosen = patches.filter((patch) => patch.primary === true);
    if (chosen.length > 1) throw badRequest('primary: only one domain can be primary');
    const ids = [...new Set(patches.map((patch) => patch.id))];
    if (ids.length !== patches.length) throw badRequest('id: a domain is listed twice');
    const current = await getDomains(db, companyId, ids);
    const missing = ids.find((domainId) => !current.some((domain) => domain.id === domainId));
    if (missing !== undefined) throw notFound(`domain ${missing}`);
    for (const patch of patches) {
      const domain = current.find((d) => d.id === patch.id)!;
      // the name is the id (it is locked in the console's edit form)
      if (patch.name !== undefined && patch.name !== domain.name) throw badRequest(`${patch.id}: name cannot be changed: it is the domain id`);
      await db.query(`UPDATE domains SET name = $3, description = $4, updated_at = now() WHERE company_id = $1 AND id = $2`, [
        companyId,
        patch.id,
        patch.name ?? domain.name,
        patch.description ?? domain.description,
      ]);
    }
    if (chosen.length === 1) await makePrimary(db, companyId, chosen[0].id);
    return getDomains(db, companyId, ids);
  },

  /**
   * Deletes domains and, through the schema's cascades, their users, groups, applications and APIs.
   * Refuses the caller's own domain and a primary domain that other domains would outlive.
   */
  async remove(db: Queryable, companyId: string, domainIds: string[], caller: Principal): Promise<Domain[]> {
    const ids = [...new Set(domainIds)];
    const found = await getDomains(db, companyId, ids);
    const missing = ids.find((domainId) => !found.some((domain) => domain.id === domainId));
    if (missing !== undefined) throw notFound(`domain ${missing}`);
    if (caller.companyId === companyId && ids.includes(caller.domainId)) {
      throw badRequest(`${caller.domainId}: you cannot delete the domain you are signed in to`);
    }
    const primary = found.find((domain) => domain.primary);
    if (primary) {
      const others = await db.query(`SELECT 1 FROM domains WHERE company_id = $1 AND NOT (id = ANY ($2)) LIMIT 1`, [companyId, ids]);
      if (others.rows.length > 0) throw new HttpError(409, `${primary.id} is the primary domain: make another domain primary first`);
    }
    await db.query(`DELETE FROM domains WHERE company_id = $1 AND id = ANY ($2)`, [companyId, ids]);
    return found;
  },
};

export async function domainRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const tags = ['domains'];
  const base = '/companys/:companyId/domainNames';
  type CompanyParams = { companyId: string };
  type DomainParams = { companyId: string; domainId: string };

  app.get<{ Params: CompanyParams; Querystring: ListQuery }>(
    base,
    { config: { accessWithList: true }, schema: { tags, params: params('companyId'), querystring: listQuerySchema, response: { 200: { type: 'array', items: domainJson }, ...errorResponses } } },
    async (request, reply) => {
      const parsed = parseListQuery(domainResource, request.query, [request.params.companyId]);
      return sendList(reply, 'domainNames', await runList(db, domainResource, parsed, ['t.company_id = $1'], listAccess(request)));
    },
  );

  app.get<{ Params: CompanyParams }>(
    `${base}/primary`,
    { schema: { tags, params: params('companyId'), response: { 200: domainJson, ...errorResponses } } },
    async (request) => {
      const { rows } = await db.query<Domain>(`SELECT ${SELECT} FROM domains t WHERE t.company_id = $1 AND t.is_primary`, [request.params.companyId]);
      if (!rows[0]) throw notFound(`primary domain of ${request.params.companyId}`);
      return rows[0];
    },
  );

  app.get<{ Params: DomainParams }>(
    `${base}/:domainId`,
    { schema: { tags, params: params('companyId', 'domainId'), response: { 200: domainJson, ...errorResponses } } },
    async (request) => getDomain(db, request.params.companyId, request.params.domainId),
  );

  app.post<{ Params: CompanyParams; Body: DomainBody }>(
    base,
    { schema: { tags, params: params('companyId'), body: domainBody, response: { 201: domainJson, ...errorResponses } } },
    async (request, reply) => {
      const domain = await db.transaction((tx) => domains.create(tx, request.params.companyId, request.body));
      return reply.status(201).send(domain);
    },
  );

  app.put<{ Params: DomainParams; Body: DomainBody }>(
    `${base}/:domainId`,
    { schema: { tags, params: params('companyId', 'domainId'), body: domainBody, response: { 200: domainJson, ...errorResponses } } },
    async (request) => {
      const { companyId, domainId } = request.params;
      const { id: bodyId, name, description, primary } = request.body;
      if (bodyId !== undefined && bodyId !== domainId) throw badRequest('id cannot be changed');
      const [domain] = await db.transaction((tx) => domains.update(tx, companyId, [{ id: domainId, name, description, primary }]));
      return domain;
    },
  );

  app.put<{ Params: CompanyParams; Body: DomainPatch[] }>(
    base,
    { schema: { tags, params: params('companyId'), body: domainListBody, response: { 200: { type: 'array', items: domainJson }, ...errorResponses } } },
    async (request) => db.transaction((tx) => domains.update(tx, request.params.companyId, request.body)),
  );

  app.delete<{ Params: DomainParams }>(
    `${base}/:domainId`,
    { schema: { tags, params: params('companyId', 'domainId'), response: { 200: domainJson, ...errorResponses } } },
    async (request) => {
      const { companyId, domainId } = request.params;
      const [domain] = await db.transaction((tx) => domains.remove(tx, companyId, [domainId], request.principal));
      return domain;
    },
  );

  app.delete<{ Params: CompanyParams; Body: string[] }>(
    base,
    { schema: { tags, params: params('companyId'), body: idList, response: { 200: { type: 'array', items: domainJson }, ...errorResponses } } },
    async (request) => db.transaction((tx) => domains.remove(tx, request.params.companyId, request.body, request.principal)),
  );
}
