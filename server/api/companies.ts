import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { idNotAvailable, uniqueByConstraint } from './unique.js';
import { checkAccess, listAccess } from './guard.js';
import { type ListQuery, type ListResource, listQuerySchema, parseListQuery, runList, sendList } from './list.js';
import { errorResponses, id, idList, params, requiredText } from './schemas.js';

/** Path words of the API that a company id must not shadow (/api/{companyId}/application). */
const RESERVED = new Set(['companys', 'application', 'api', 'docs']);

export interface Company {
  id: string;
  name: string;
  displayName: string;
  description: string;
  type: 'root' | 'reseller' | 'customer';
  parent: string | null;
}

const SELECT = `t.id, t.name, t.display_name AS "displayName", t.description, t.type, t.parent`;

const companyResource: ListResource = {
  name: 'companys',
  table: 'companies t',
  select: SELECT,
  fields: {
    id: { column: 't.id' },
    name: { column: 't.name' },
    displayName: { column: 't.display_name' },
    description: { column: 't.description' },
    type: { column: 't.type' },
    parent: { column: 't.parent' },
  },
  search: `(t.name || ' ' || t.display_name || ' ' || t.description)`,
  key: ['t.id'],
  defaultSort: 'name',
};

const companyJson = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    displayName: { type: 'string' },
    description: { type: 'string' },
    type: { type: 'string' },
    parent: { type: ['string', 'null'] },
  },
} as const;

const companyBody = {
  type: 'object',
  required: ['name', 'displayName', 'description'],
  additionalProperties: false,
  properties: {
    id,
    name: { ...id, description: 'Company Name; the id on create' },
    displayName: requiredText(),
    description: requiredText(2000),
    type: { type: 'string', enum: ['customer', 'reseller', 'root'], default: 'customer' },
    parent: { anyOf: [id, { type: 'null' }] },
  },
} as const;

type CompanyBody = { id?: string; name: string; displayName: string; description: string; type: Company['type']; parent?: string | null };

/** The company; `lock` holds its row until the transaction ends (a type change and a child creation never interleave). */
async function getCompany(db: Queryable, companyId: string, lock: '' | 'FOR SHARE' | 'FOR UPDATE' = ''): Promise<Company | undefined> {
  const { rows } = await db.query<Company>(`SELECT ${SELECT} FROM companies t WHERE t.id = $1 ${lock}`, [companyId]);
  return rows[0];
}

/** Every write of a company goes through here. */
export const companies = {
  async create(db: Queryable, body: CompanyBody): Promise<Company> {
    const companyId = body.id ?? body.name;
    if (body.id !== undefined && body.id !== body.name) throw badRequest('id must equal name when creating a company');
    if (RESERVED.has(companyId.toLowerCase())) throw badRequest(`name: "${companyId}" is reserved`);
    if (body.type === 'root') throw badRequest('type: only the provider itself is of type root');
    const parent = body.parent ? await getCompany(db, body.parent, 'FOR SHARE') : undefined;
    if (!parent) throw badRequest('parent: the parent company is required');
    if (parent.type === 'customer') throw badRequest('parent: a customer company cannot have child companies');
    return uniqueByConstraint({ companies_pkey: idNotAvailable('company', companyId) }, async () => {
      const { rows } = await db.query<Company>(
        `INSERT INTO companies (id, name, display_name, description, type, parent, ancestors)
         SELECT $1, $2, $3, $4, $5, p.id, p.ancestors || $1::text FROM companies p WHERE p.id = $6
         RETURNING ${SELECT.replaceAll('t.', '')}`,
        [companyId, body.name, body.displayName, body.description, body.type ?? 'customer', parent.id],
      );
      return rows[0];
    });
  },

  async update(db: Queryable, companyId: string, body: CompanyBody, callerCompanyId: string): Promise<Company> {
    const current = await getCompany(db, companyId, 'FOR UPDATE');
    if (!current) throw notFound(`company ${companyId}`);
    if (body.id !== undefined && body.id !== companyId) throw badRequest('id cannot be changed');
    if (body.parent !== undefined && body.parent !== current.parent) throw badRequest('parent cannot be changed');
    const type = body.type ?? current.type;
    if ((type === 'root') !== (current.type === 'root')) throw badRequest('type: root cannot be given or taken away');
    // the name is the id (it is locked in the console's edit form)
    if (body.name !== current.name) throw badRequest('name cannot be changed: it is the company id');
    if (type !== current.type) {
      // A company's type is what its parent sold it: its own administrators cannot promote it
      // (a customer that made itself a reseller could then create companies of its own).
      if (companyId === callerCompanyId) {
        throw new HttpError(403, 'type: only an administrator of the parent company can change the type of your own company');
      }
      // the console hides Type for a reseller whose parent is not a reseller (docs/CONSOLE.md)
      const parent = current.parent ? await getCompany(db, current.parent) : undefined;
      if (current.type === 'reseller' && parent?.type !== 'reseller') {
        throw new HttpError(409, `type: ${companyId} is a reseller directly under ${parent?.id ?? 'no parent'}: its type cannot be changed`);
      }
      if (type === 'customer') {
        const children = await db.query(`SELECT 1 FROM companies WHERE parent = $1 LIMIT 1`, [companyId]);
        if (children.rowCount > 0) throw new HttpError(409, `type: ${companyId} has child companies, which a customer cannot have: delete them first`);
      }
    }
    const { rows } = await db.query<Company>(
      `UPDATE companies t SET display_name = $2, description = $3, type = $4, updated_at = now()
       WHERE t.id = $1 RETURNING ${SELECT}`,
      [companyId, body.displayName, body.description, type],
    );
    return rows[0];
  },

  /** Deletes companies with their domains and everything in them; refuses the root, the caller's own and parents of others. */
  async remove(db: Queryable, companyIds: string[], callerCompanyId: string): Promise<Company[]> {
    const removed: Company[] = [];
    for (const companyId of companyIds) {
      const company = await getCompany(db, companyId);
      if (!company) throw notFound(`company ${companyId}`);
      if (company.type === 'root' || companyId === callerCompanyId) throw badRequest(`${companyId}: you cannot delete the root company or your own company`);
      const children = await db.query(`SELECT 1 FROM companies WHERE parent = $1 AND NOT (id = ANY ($2)) LIMIT 1`, [companyId, companyIds]);
      if (children.rowCount > 0) throw new HttpError(409, `${companyId} still has child companies: delete them first`);
      removed.push(company);
    }
    // children before parents, so that the parent reference never dangles
    const ordered = [...removed].sort((a, b) => depth(b) - depth(a));
    for (const company of ordered) await db.query(`DELETE FROM companies WHERE id = $1`, [company.id]);
    return removed;
    function depth(company: Company) {
      let d = 0;
      for (let c: Company | undefined = company; c?.parent; c = removed.find((r) => r.id === c!.parent)) d++;
      return d;
    }
  },
};

export async function companyRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const tags = ['companies'];

  app.get<{ Params: { companyId: string } }>(
    '/companys/:companyId',
    { schema: { tags, params: params('companyId'), response: { 200: companyJson, ...errorResponses } } },
    async (request) => (await getCompany(db, request.params.companyId))!,
  );

  app.get<{ Params: { companyId: string }; Querystring: ListQuery }>(
    '/companys/:companyId/childCompanys',
    { config: { accessWithList: true }, schema: { tags, params: params('companyId'), querystring: listQuerySchema, response: { 200: { type: 'array', items: companyJson }, ...errorResponses } } },
    async (request, reply) => {
      const parsed = parseListQuery(companyResource, request.query, [request.params.companyId]);
      return sendList(reply, 'companys', await runList(db, companyResource, parsed, ['t.parent = $1'], listAccess(request)));
    },
  );

  app.post<{ Body: CompanyBody }>(
    '/companys',
    { schema: { tags, body: companyBody, response: { 201: companyJson, ...errorResponses } } },
    async (request, reply) => {
      const parent = request.body.parent;
      if (!parent) throw badRequest('parent: the parent company is required');
      await checkAccess(db, request.principal, parent);
      const company = await db.transaction((tx) => companies.create(tx, request.body));
      return reply.status(201).send(company);
    },
  );

  app.put<{ Params: { companyId: string }; Body: CompanyBody }>(
    '/companys/:companyId',
    { schema: { tags, params: params('companyId'), body: companyBody, response: { 200: companyJson, ...errorResponses } } },
    async (request) => db.transaction((tx) => companies.update(tx, request.params.companyId, request.body, request.principal.companyId)),
  );

  app.delete<{ Params: { companyId: string } }>(
    '/companys/:companyId',
    { schema: { tags, params: params('companyId'), response: { 200: companyJson, ...errorResponses } } },
    async (request) => (await db.transaction((tx) => companies.remove(tx, [request.params.companyId], request.principal.companyId)))[0],
  );

  app.delete<{ Body: string[] }>(
    '/companys',
    { schema: { tags, body: idList, response: { 200: { type: 'array', items: companyJson }, ...errorResponses } } },
    async (request) => {
      const ids = [...new Set(request.body)];
      const { rows } = await db.query<{ id: string }>(
        `SELECT id FROM companies WHERE id = ANY ($1) AND $2 = ANY (ancestors)`,
        [ids, request.principal.companyId],
      );
      const missing = ids.find((companyId) => !rows.some((row) => row.id === companyId));
      if (missing !== undefined) throw notFound(`company ${missing}`);
      return db.transaction((tx) => companies.remove(tx, ids, request.principal.companyId));
    },
  );
}
