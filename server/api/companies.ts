import type { Principal } from '../context.js';
import { assertContainsHoldersIn } from './containment.js';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { idNotAvailable, uniqueByConstraint } from './unique.js';
import { checkAccess } from './guard.js';
import { addListRoute, bodySchema, type Change, crudRoutes, type RecordOf, type ResourceDefinition, selectList, type WriteContext } from './resource.js';
import { id, requiredText } from './schemas.js';

/** Path words of the API that a company id must not shadow (/api/{companyId}/application). */
const RESERVED = new Set(['companys', 'application', 'api', 'docs']);

/**
 * Companies, a tree: created under a parent, listed as a parent's children
 * (`/companys/{id}/childCompanys`) or as a whole subtree (`/companys/{id}/subtreeCompanys`), never
 * moved; so the collection has no list and no bulk update of its own. The other plain routes are
 * produced from this definition (resource.ts).
 */
export const companyDefinition = {
  name: 'companys',
  permission: 'companies',
  label: 'company',
  table: 'companies t',
  fields: {
    id: { column: 't.id', input: id },
    name: { column: 't.name', input: { ...id, description: 'Company Name; the id on create' } },
    displayName: { column: 't.display_name', input: requiredText() },
    description: { column: 't.description', input: requiredText(2000) },
    type: { column: 't.type', input: { type: 'string', enum: ['customer', 'reseller', 'root'] as const, default: 'customer' } },
    parent: { column: 't.parent', type: 'nullableText', input: { anyOf: [id, { type: 'null' }] } },
  },
  search: `(t.name || ' ' || t.display_name || ' ' || t.description)`,
  key: ['t.id'],
  defaultSort: 'name',
} satisfies ResourceDefinition;

export type Company = RecordOf<typeof companyDefinition>;

const SELECT = selectList(companyDefinition);

type CompanyBody = { id?: string; name: string; displayName: string; description: string; type: Company['type']; parent?: string | null };

/** The company; `lock` holds its row until the transaction ends (a type change and a child creation never interleave). */
async function getCompany(db: Queryable, companyId: string, lock: '' | 'FOR SHARE' | 'FOR UPDATE' = ''): Promise<Company | undefined> {
  const { rows } = await db.query<Company>(`SELECT ${SELECT} FROM companies t WHERE t.id = $1 ${lock}`, [companyId]);
  return rows[0];
}

/** Every write of a company goes through here. */
export const companies = {
  /** A child of `parent`, which must be inside the caller's subtree. */
  async create(db: Queryable, { caller }: WriteContext, body: CompanyBody): Promise<Company> {
    if (!body.parent) throw badRequest('parent: the parent company is required').as('company.parentRequired');
    await checkAccess(db, caller, body.parent, undefined, 'companies:write');
    const companyId = body.id ?? body.name;
    if (body.id !== undefined && body.id !== body.name) throw badRequest('id must equal name when creating a company').as('company.idNotName');
    if (RESERVED.has(companyId.toLowerCase())) throw badRequest(`name: "${companyId}" is reserved`).as('company.reserved', { name: companyId.slice(0, 100) });
    if (body.type === 'root') throw badRequest('type: only the provider itself is of type root').as('company.rootType');
    const parent = body.parent ? await getCompany(db, body.parent, 'FOR SHARE') : undefined;
    if (!parent) throw badRequest('parent: the parent company is required').as('company.parentRequired');
    if (parent.type === 'customer') throw badRequest('parent: a customer company cannot have child companies').as('company.customerParent');
    return uniqueByConstraint({ companies_pkey: idNotAvailable('company', companyId) }, async () => {
      const { rows } = await db.query<Company>(
        `INSERT INTO companies AS t (id, name, display_name, description, type, parent, ancestors)
         SELECT $1, $2, $3, $4, $5, p.id, p.ancestors || $1::text FROM companies p WHERE p.id = $6
         RETURNING ${SELECT}`,
        [companyId, body.name, body.displayName, body.description, body.type ?? 'customer', parent.id],
      );
      return rows[0];
    });
  },

  async update(db: Queryable, { caller }: WriteContext, changes: Change<CompanyBody>[]): Promise<Company[]> {
    const updated: Company[] = [];
    for (const { id: companyId, body } of changes) updated.push(await updateCompany(db, companyId, body, caller.companyId));
    return updated;
  },

  /** Deletes companies inside the caller's subtree with their domains and everything in them; refuses the root, the caller's own and parents of others. */
  async remove(db: Queryable, { caller }: WriteContext, companyIds: string[]): Promise<Company[]> {
    const ids = [...new Set(companyIds)];
    const { rows } = await db.query<{ id: string }>(`SELECT id FROM companies WHERE id = ANY ($1) AND $2 = ANY (ancestors)`, [ids, caller.companyId]);
    const missing = ids.find((companyId) => !rows.some((row) => row.id === companyId));
    if (missing !== undefined) throw notFound(`company ${missing}`);
    return removeCompanies(db, ids, caller);
  },
};

async function updateCompany(db: Queryable, companyId: string, body: CompanyBody, callerCompanyId: string): Promise<Company> {
    const current = await getCompany(db, companyId, 'FOR UPDATE');
    if (!current) throw notFound(`company ${companyId}`);
    if (body.id !== undefined && body.id !== companyId) throw badRequest('id cannot be changed').as('resource.idChanged');
    if (body.parent !== undefined && body.parent !== current.parent) throw badRequest('parent cannot be changed').as('company.parentChanged');
    const type = body.type ?? current.type;
    if ((type === 'root') !== (current.type === 'root')) throw badRequest('type: root cannot be given or taken away').as('company.rootChanged');
    // the name is the id (it is locked in the console's edit form)
    if (body.name !== current.name) throw badRequest('name cannot be changed: it is the company id').as('company.nameChanged');
    if (type !== current.type) {
      // A company's type is what its parent sold it: its own administrators cannot promote it
      // (a customer that made itself a reseller could then create companies of its own).
      if (companyId === callerCompanyId) {
        throw new HttpError(403, 'type: only an administrator of the parent company can change the type of your own company').as('company.ownType');
      }
      // the console hides Type for a reseller whose parent is not a reseller (docs/CONSOLE.md)
      const parent = current.parent ? await getCompany(db, current.parent) : undefined;
      if (current.type === 'reseller' && parent?.type !== 'reseller') {
        throw new HttpError(409, `type: ${companyId} is a reseller directly under ${parent?.id ?? 'no parent'}: its type cannot be changed`).as('company.topReseller', {
          company: companyId.slice(0, 100),
          parent: (parent?.id ?? '').slice(0, 100),
        });
      }
      if (type === 'customer') {
        const children = await db.query(`SELECT 1 FROM companies WHERE parent = $1 LIMIT 1`, [companyId]);
        if (children.rowCount > 0) throw new HttpError(409, `type: ${companyId} has child companies, which a customer cannot have: delete them first`).as('company.customerWithChildren', { company: companyId.slice(0, 100) });
      }
    }
    const { rows } = await db.query<Company>(
      `UPDATE companies t SET display_name = $2, description = $3, type = $4, updated_at = now()
       WHERE t.id = $1 RETURNING ${SELECT}`,
      [companyId, body.displayName, body.description, type],
    );
    return rows[0];
}

async function removeCompanies(db: Queryable, companyIds: string[], caller: Principal): Promise<Company[]> {
    const callerCompanyId = caller.companyId;
    const removed: Company[] = [];
    for (const companyId of companyIds) {
      const company = await getCompany(db, companyId);
      if (!company) throw notFound(`company ${companyId}`);
      if (company.type === 'root' || companyId === callerCompanyId) throw badRequest(`${companyId}: you cannot delete the root company or your own company`).as('company.deleteOwn', { company: companyId.slice(0, 100) });
      const children = await db.query(`SELECT 1 FROM companies WHERE parent = $1 AND NOT (id = ANY ($2)) LIMIT 1`, [companyId, companyIds]);
      if (children.rowCount > 0) throw new HttpError(409, `${companyId} still has child companies: delete them first`).as('company.hasChildren', { company: companyId.slice(0, 100) });
      removed.push(company);
    }
    // their people go with them: nobody deletes the accounts of those who hold more than she does
    await assertContainsHoldersIn(db, caller, { companyIds });
    // children before parents, so that the parent reference never dangles
    const ordered = [...removed].sort((a, b) => depth(b) - depth(a));
    for (const company of ordered) await db.query(`DELETE FROM companies WHERE id = $1`, [company.id]);
    return removed;
    function depth(company: Company) {
      let d = 0;
      for (let c: Company | undefined = company; c?.parent; c = removed.find((r) => r.id === c!.parent)) d++;
      return d;
    }
}

export async function companyRoutes(app: FastifyInstance) {
  const tags = ['companies'];
  addListRoute(app, companyDefinition, { path: '/companys/:companyId/childCompanys', tags, scope: { params: ['companyId'], where: ['t.parent = $1'] } });
  // The company and every company below it, at any depth (the console's company switcher). The
  // guard's check of :companyId (inside the caller's subtree) makes the whole list the caller's;
  // `@>` rather than `= ANY` so that the GIN index on ancestors answers it.
  addListRoute(app, companyDefinition, {
    path: '/companys/:companyId/subtreeCompanys',
    tags,
    summary: 'The company and all its descendants',
    scope: { params: ['companyId'], where: ['t.ancestors @> ARRAY[$1::text]'] },
  });
  await crudRoutes(companyDefinition, {
    tags,
    path: '/companys',
    idParam: 'companyId',
    scope: { params: [], where: [] },
    rules: companies,
    bodies: { create: bodySchema(companyDefinition, ['name', 'displayName', 'description']), update: bodySchema(companyDefinition, ['name', 'displayName', 'description']) },
    routes: ['get', 'create', 'update', 'remove', 'removeList'],
  })(app);
}
