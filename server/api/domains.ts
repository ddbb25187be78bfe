import { assertContainsHoldersIn } from './containment.js';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../db/index.js';
import { badRequest, HttpError, notFound, uniqueAs } from '../errors.js';
import { bodySchema, type Change, crudRoutes, findRecords, recordSchema, type RecordOf, type ResourceDefinition, samePathId, selectList, type WriteContext } from './resource.js';
import { errorResponses, id, params, requiredText } from './schemas.js';
import { LANGUAGES } from '../i18n/index.js';

/** `/domainNames/primary` is a route of its own, so no domain may be called that. */
const RESERVED = new Set(['primary']);

/**
 * Domains of a company. The plain routes are produced from this definition (resource.ts); the one
 * primary domain is a rule of the writes below and `GET …/domainNames/primary` a route of its own.
 */
export const domainDefinition = {
  name: 'domainNames',
  permission: 'domains',
  label: 'domain',
  table: 'domains t',
  fields: {
    id: { column: 't.id', input: id },
    name: { column: 't.name', input: { ...id, description: 'Domain Name; the id on create' } },
    description: { column: 't.description', input: requiredText(2000) },
    primary: {
      column: 't.is_primary',
      type: 'boolean',
      input: { type: 'boolean', description: 'on create: ignored (the first domain is primary); on update: true makes it the primary domain' },
    },
    // the languages of its hosted pages and e-mails (docs/CONSOLE.md, "Languages"): null offers all
    languages: {
      column: 't.languages',
      type: 'nullableTexts',
      listed: false,
      input: { type: ['array', 'null'], minItems: 1, maxItems: LANGUAGES.length, uniqueItems: true, items: { type: 'string', enum: [...LANGUAGES] }, description: 'Languages offered; null: all' },
    },
    defaultLanguage: {
      column: 't.default_language',
      type: 'nullableText',
      listed: false,
      input: { type: ['string', 'null'], enum: [...LANGUAGES, null], description: 'Language when none asked for is offered; null: English' },
    },
  },
  search: `(t.name || ' ' || t.description)`,
  key: ['t.company_id', 't.id'],
  defaultSort: 'name',
} satisfies ResourceDefinition;

export type Domain = RecordOf<typeof domainDefinition>;

const SELECT = selectList(domainDefinition);
const domainJson = recordSchema(domainDefinition);

const domainListBody = {
  type: 'array',
  minItems: 1,
  maxItems: 1000,
  items: {
    type: 'object',
    required: ['id'],
    additionalProperties: false,
    properties: { id, name: id, description: requiredText(2000), primary: { type: 'boolean' }, languages: domainDefinition.fields.languages.input, defaultLanguage: domainDefinition.fields.defaultLanguage.input },
  },
  description: 'The whole list; exactly one entry with primary true makes that domain the primary one',
} as const;

/** Create requires name and description (the body schema says so); an update may leave any out. */
type DomainBody = { id?: string; name?: string; description?: string; primary?: boolean; languages?: string[] | null; defaultLanguage?: string | null };

/** The default language must be one the domain offers. */
function checkLanguages(languages: string[] | null, defaultLanguage: string | null) {
  if (languages && defaultLanguage && !languages.includes(defaultLanguage)) throw badRequest(`defaultLanguage: ${defaultLanguage} is not among the domain's languages`).as('domain.defaultLanguage', { language: defaultLanguage.slice(0, 100) });
}
type CompanyParams = { companyId: string };

function checkName(name: string) {
  if (RESERVED.has(name.toLowerCase())) throw badRequest(`name: "${name}" is reserved`).as('domain.reserved', { name: name.slice(0, 100) });
}

/** The company's domains with these ids, in the order asked; 404 naming the first unknown one. */
const getDomains = (db: Queryable, companyId: string, domainIds: string[]) =>
  findRecords<Domain>(db, domainDefinition, { where: ['t.company_id = $1'], values: [companyId] }, domainIds);

async function makePrimary(db: Queryable, companyId: string, domainId: string) {
  // the one-primary index is checked row by row: clear the old primary before setting the new one
  await db.query(`UPDATE domains SET is_primary = false, updated_at = now() WHERE company_id = $1 AND is_primary AND id <> $2`, [companyId, domainId]);
  await db.query(`UPDATE domains SET is_primary = true, updated_at = now() WHERE company_id = $1 AND id = $2 AND NOT is_primary`, [companyId, domainId]);
}

/** Every write of a domain goes through here. */
export const domains = {
  /** The company's first domain becomes its primary one; `primary` in the body is ignored. */
  async create(db: Queryable, { params }: WriteContext<CompanyParams>, body: DomainBody): Promise<Domain> {
    const domainId = body.id ?? body.name!;
    if (body.id !== undefined && body.id !== body.name) throw badRequest('id must equal name when creating a domain').as('domain.idNotName');
    checkName(domainId);
    checkLanguages(body.languages ?? null, body.defaultLanguage ?? null);
    return uniqueAs(domainId, async () => {
      const { rows } = await db.query<Domain>(
        `INSERT INTO domains AS t (company_id, id, name, description, is_primary, languages, default_language)
         VALUES ($1, $2, $2, $3, NOT EXISTS (SELECT 1 FROM domains WHERE company_id = $1), $4, $5)
         RETURNING ${SELECT}`,
        [params.companyId, domainId, body.description, body.languages ?? null, body.defaultLanguage ?? null],
      );
      return rows[0];
    });
  },

  /** Describes domains (the name is the id and stays); the one entry with primary true becomes the primary domain. Unknown ids: 404, nothing changed. */
  async update(db: Queryable, { params }: WriteContext<CompanyParams>, changes: Change<DomainBody>[]): Promise<Domain[]> {
    const { companyId } = params;
    const patches = changes.map(samePathId);
    const chosen = patches.filter((patch) => patch.primary === true);
    if (chosen.length > 1) throw badRequest('primary: only one domain can be primary').as('domain.onePrimary');
    const ids = [...new Set(patches.map((patch) => patch.id))];
    if (ids.length !== patches.length) throw badRequest('id: a domain is listed twice').as('domain.listedTwice');
    const current = await getDomains(db, companyId, ids);
    for (const patch of patches) {
      const domain = current.find((d) => d.id === patch.id)!;
      // the name is the id (it is locked in the console's edit form)
      if (patch.name !== undefined && patch.name !== domain.name) throw badRequest(`${patch.id}: name cannot be changed: it is the domain id`).as('domain.nameChanged', { domain: patch.id.slice(0, 100) });
      const languages = patch.languages !== undefined ? patch.languages : domain.languages;
      const defaultLanguage = patch.defaultLanguage !== undefined ? patch.defaultLanguage : domain.defaultLanguage;
      checkLanguages(languages, defaultLanguage);
      await db.query(`UPDATE domains SET name = $3, description = $4, languages = $5, default_language = $6, updated_at = now() WHERE company_id = $1 AND id = $2`, [
        companyId,
        patch.id,
        patch.name ?? domain.name,
        patch.description ?? domain.description,
        languages,
        defaultLanguage,
      ]);
    }
    if (chosen.length === 1) await makePrimary(db, companyId, chosen[0].id);
    return getDomains(db, companyId, ids);
  },

  /**
   * Deletes domains and, through the schema's cascades, their users, groups, applications and APIs.
   * Refuses the caller's own domain and a primary domain that other domains would outlive.
   */
  async remove(db: Queryable, { params, caller }: WriteContext<CompanyParams>, domainIds: string[]): Promise<Domain[]> {
    const { companyId } = params;
    const ids = [...new Set(domainIds)];
    const found = await getDomains(db, companyId, ids);
    if (caller.companyId === companyId && ids.includes(caller.domainId)) {
      throw badRequest(`${caller.domainId}: you cannot delete the domain you are signed in to`).as('domain.deleteOwn', { domain: caller.domainId.slice(0, 100) });
    }
    const primary = found.find((domain) => domain.primary);
    if (primary) {
      const others = await db.query(`SELECT 1 FROM domains WHERE company_id = $1 AND NOT (id = ANY ($2)) LIMIT 1`, [companyId, ids]);
      if (others.rows.length > 0) throw new HttpError(409, `${primary.id} is the primary domain: make another domain primary first`).as('domain.deletePrimary', { domain: primary.id.slice(0, 100) });
    }
    // its people go with it: nobody deletes the accounts of those who hold more than she does
    await assertContainsHoldersIn(db, caller, { companyId, domainIds: ids });
    await db.query(`DELETE FROM domains WHERE company_id = $1 AND id = ANY ($2)`, [companyId, ids]);
    return found;
  },
};

export async function domainRoutes(app: FastifyInstance) {
  const tags = ['domains'];
  const base = '/companys/:companyId/domainNames';
  await crudRoutes(domainDefinition, {
    tags,
    path: base,
    idParam: 'domainId',
    scope: { params: ['companyId'], where: ['t.company_id = $1'] },
    rules: domains,
    bodies: { create: bodySchema(domainDefinition, ['name', 'description']), update: bodySchema(domainDefinition, ['name', 'description']), updateList: domainListBody },
  })(app);

  app.get<{ Params: CompanyParams }>(
    `${base}/primary`,
    { config: { permission: 'domains:read' }, schema: { tags, params: params('companyId'), response: { 200: domainJson, ...errorResponses } } },
    async (request) => {
      const { rows } = await app.ctx.db.query<Domain>(`SELECT ${SELECT} FROM domains t WHERE t.company_id = $1 AND t.is_primary`, [request.params.companyId]);
      if (!rows[0]) throw notFound(`primary domain of ${request.params.companyId}`);
      return rows[0];
    },
  );
}
