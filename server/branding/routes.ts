import type { FastifyInstance, FastifyRequest } from 'fastify';
import { recordAudit } from '../accounts/audit.js';
import type { Queryable } from '../db/index.js';
import { badRequest } from '../errors.js';
import { LANGUAGES, type Language } from '../i18n/index.js';
import { errorResponse, errorResponses, isEmailAddress, params } from '../api/schemas.js';
import { checkTemplate, PURPOSES, type Purpose, renderTemplate, templateFor, messageBranding } from '../mail/templates.js';
import { DEFAULTS } from './emailDefaults.js';
import { AA_TEXT, COLOUR, contrast, DEFAULT_COLOURS, ratioText } from './contrast.js';
import { brandingChanged, currentBranding, type ImageKind, imageUrl, resolvedBranding, TEXT_COLUMNS, TEXT_FIELDS, type TextField } from './effective.js';
import { checkImage, IMAGE_LIMITS, tooLarge } from './images.js';

/**
 * A company's branding and e-mail templates in the management API (docs/CONSOLE.md, "Branding" and
 * "E-mail templates"), under /api/companys/{companyId}/: the guard answers 404 for a company outside
 * the caller's subtree and 403 without the permission each route declares. Reads need
 * companies:read (every console person's console shows its company's branding), writes
 * branding:write; each write is one audit record on the company's history.
 */
type CompanyParams = { companyId: string };
type TemplateParams = CompanyParams & { kind: Purpose; language: Language };
type OwnFields = Record<TextField, string | null>;

const nullableText = (maxLength: number) => ({ type: ['string', 'null'], maxLength }) as const;
const MAX_LENGTH: Record<TextField, number> = { displayName: 200, primaryLight: 50, backgroundLight: 50, primaryDark: 50, backgroundDark: 50, supportEmail: 254, supportUrl: 2000 };
const ownProperties = Object.fromEntries(TEXT_FIELDS.map((field) => [field, nullableText(MAX_LENGTH[field])]));
const effectiveProperties = {
  ...Object.fromEntries([...TEXT_FIELDS, 'logoUrl', 'iconUrl'].map((field) => [field, { type: 'string' }])),
  inheritedFrom: { type: 'object', additionalProperties: { type: 'string' } },
  inheritedFromCompanies: {
    type: 'object',
    additionalProperties: { type: 'object', properties: { name: { type: 'string' }, readable: { type: 'boolean' } } },
  },
};
const brandingSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    ...ownProperties,
    logoUrl: { type: ['string', 'null'] },
    iconUrl: { type: ['string', 'null'] },
    effective: { type: 'object', properties: effectiveProperties },
  },
} as const;

const templateSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    kind: { type: 'string' },
    language: { type: 'string' },
    subject: { type: 'string' },
    body: { type: 'string' },
    source: { type: 'string', enum: ['own', 'inherited', 'default'] },
  },
} as const;
const templateParams = {
  type: 'object',
  required: ['companyId', 'kind', 'language'],
  properties: { ...params('companyId').properties, kind: { type: 'string', enum: [...PURPOSES] }, language: { type: 'string', enum: [...LANGUAGES] } },
} as const;
const templateBody = {
  type: 'object',
  required: ['subject', 'body'],
  additionalProperties: false,
  properties: { subject: { type: 'string', maxLength: 1000 }, body: { type: 'string', maxLength: 50_000 } },
} as const;

/** The company's own row: its text fields, whether it has a logo and an icon, its version. */
async function ownRow(db: Queryable, companyId: string) {
  const { rows } = await db.query<Record<string, unknown> & { version: number; has_logo: boolean; has_icon: boolean }>(
    `SELECT ${Object.values(TEXT_COLUMNS).join(', ')}, version, logo IS NOT NULL AS has_logo, icon IS NOT NULL AS has_icon
       FROM company_branding WHERE company_id = $1`,
    [companyId],
  );
  return rows[0];
}

const ownFieldsOf = (row: Record<string, unknown> | undefined): OwnFields =>
  Object.fromEntries(TEXT_FIELDS.map((field) => [field, (row?.[TEXT_COLUMNS[field]] as string | null | undefined) ?? null])) as OwnFields;

/**
 * The companies the effective fields come from, each with the name the console shows for it
 * (docs/CONSOLE.md, "Branding"): inside the caller's subtree (readable: the console links to its
 * branding) its display name; above her own company only what its hosted pages show anyway, its own
 * branding's display name, else nothing (the console shows the id).
 */
async function inheritedFromCompanies(db: Queryable, ids: string[], callerCompanyId: string) {
  if (ids.length === 0) return {};
  const { rows } = await db.query<{ id: string; readable: boolean; name: string | null; brand: string | null }>(
    `SELECT c.id, $2 = ANY (c.ancestors) AS readable, coalesce(nullif(c.display_name, ''), c.name) AS name, b.display_name AS brand
       FROM companies c LEFT JOIN company_branding b ON b.company_id = c.id
      WHERE c.id = ANY ($1)`,
    [ids, callerCompanyId],
  );
  return Object.fromEntries(rows.map((row) => [row.id, { name: (row.readable ? row.name : row.brand) ?? row.id, readable: row.readable }]));
}

/** What GET and PUT answer: the own fields (null when not set) and the effective branding with where each field comes from. */
async function brandingRecord(db: Queryable, companyId: string, callerCompanyId: string) {
  const row = await ownRow(db, companyId);
  const effective = await resolvedBranding(db, companyId);
  return {
    id: companyId,
    ...ownFieldsOf(row),
    logoUrl: row?.has_logo ? imageUrl(companyId, 'logo', row.version) : null,
    iconUrl: row?.has_icon ? imageUrl(companyId, 'icon', row.version) : null,
    effective: { ...effective, inheritedFromCompanies: await inheritedFromCompanies(db, [...new Set(Object.values(effective.inheritedFrom))], callerCompanyId) },
  };
}

/** One field's input: '' and null inherit; otherwise checked, with a 400 naming the field. */
function checkField(field: TextField, input: string | null): string | null {
  const value = input?.trim() ?? '';
  if (value === '') return null;
  if (/[\u0000-\u001f\u007f]/.test(value)) throw badRequest(`${field}: must not contain control characters`).as('branding.control', { field });
  switch (field) {
    case 'displayName':
      return value;
    case 'supportEmail':
      if (!isEmailAddress(value)) throw badRequest(`supportEmail: "${value.slice(0, 100)}" is not an e-mail address`).as('branding.email', { field });
      return value;
    case 'supportUrl': {
      let url: URL | undefined;
      try {
        url = new URL(value);
      } catch {
        url = undefined;
      }
      if (!url || url.protocol !== 'https:' || url.username || url.password) throw badRequest('supportUrl: must be an https:// address (without a user name or password)').as('branding.url', { field });
      return url.href;
    }
    default:
      if (!COLOUR.test(value)) throw badRequest(`${field}: "${value.slice(0, 20)}" is not a colour; write it #rrggbb, e.g. #1565c0`).as('branding.colour', { field, value: value.slice(0, 20) });
      return value.toLowerCase();
  }
}

const PAIRS = [
  { primary: 'primaryLight', background: 'backgroundLight', theme: 'light', better: 'darker' },
  { primary: 'primaryDark', background: 'backgroundDark', theme: 'dark', better: 'lighter' },
] as const;

/**
 * WCAG AA for the primary colour as text on the background, for each theme whose colours this write
 * sets (the other of the pair as it will be in effect: the company's own, else inherited, else the
 * theme's default). Text on the primary colour (buttons) is black or white, whichever reads better,
 * which always reaches 4.58:1.
 */
async function checkContrast(db: Queryable, companyId: string, after: OwnFields, changed: Set<TextField>) {
  const { rows } = await db.query<{ parent: string | null }>(`SELECT parent FROM companies WHERE id = $1`, [companyId]);
  const parent = rows[0]?.parent ? await currentBranding(db, rows[0].parent) : {};
  const inEffect = (field: ColourField) =>
    after[field] ?? (parent as Record<string, string | undefined>)[field] ?? DEFAULT_COLOURS[field];
  for (const pair of PAIRS) {
    if (!changed.has(pair.primary) && !changed.has(pair.background)) continue;
    const primary = inEffect(pair.primary);
    const background = inEffect(pair.background);
    const ratio = contrast(primary, background);
    if (ratio >= AA_TEXT) continue;
    const field = changed.has(pair.primary) ? pair.primary : pair.background;
    throw badRequest(
      `${field}: the primary colour ${primary} on the ${pair.theme} background ${background} has a contrast ratio of ${ratioText(ratio)}; WCAG AA asks at least ${AA_TEXT}:1 for text. Choose a ${field === pair.primary ? `${pair.better} primary colour` : 'background further from the primary colour'}.`,
    ).as('branding.contrast', { field, primary, background, theme: pair.theme, ratio: ratioText(ratio), minimum: `${AA_TEXT}:1` });
  }
  await checkDescendants(db, companyId, inEffect, changed);
}

type ColourField = (typeof PAIRS)[number]['primary' | 'background'];
const COLOUR_FIELDS = PAIRS.flatMap((pair) => [pair.primary, pair.background]);

/**
 * The same check for the companies below (docs/CONSOLE.md, "Branding"): a descendant that sets one
 * colour of a pair itself (or has it from a company between it and this one) and inherits the other
 * from here would show the new pair. One query over the subtree reads the rows that set a colour; a
 * descendant that sets none shows the pair of its nearest such row, or this company's, checked above.
 * Only this company's descendants are read, and they are inside the caller's subtree (the guard checked
 * this company there): naming one tells the caller nothing she cannot read.
 */
async function checkDescendants(db: Queryable, companyId: string, inEffect: (field: ColourField) => string, changed: Set<TextField>) {
  const pairs = PAIRS.filter((pair) => changed.has(pair.primary) || changed.has(pair.background));
  if (pairs.length === 0) return;
  const { rows } = await db.query<{ id: string; name: string; ancestors: string[] } & Record<string, string | null>>(
    `SELECT c.id, coalesce(nullif(c.display_name, ''), c.name) AS name, c.ancestors, ${COLOUR_FIELDS.map((field) => `b.${TEXT_COLUMNS[field]}`).join(', ')}
       FROM companies c JOIN company_branding b ON b.company_id = c.id
      WHERE c.ancestors @> ARRAY[$1::text] AND c.id <> $1
        AND (${COLOUR_FIELDS.map((field) => `b.${TEXT_COLUMNS[field]} IS NOT NULL`).join(' OR ')})
      ORDER BY array_length(c.ancestors, 1), c.name, c.id`,
    [companyId],
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const row of rows) {
    // the rows between this company (excluded) and the descendant, nearest first
    const chain = row.ancestors.slice(row.ancestors.indexOf(companyId) + 1).reverse().flatMap((id) => byId.get(id) ?? []);
    const below = (field: ColourField) => chain.find((link) => link[TEXT_COLUMNS[field]] != null)?.[TEXT_COLUMNS[field]] ?? undefined;
    for (const pair of pairs) {
      const own = { primary: below(pair.primary), background: below(pair.background) };
      // both set below: this write does not change them; neither: the pair checked above
      if ((own.primary === undefined) === (own.background === undefined)) continue;
      const primary = own.primary ?? inEffect(pair.primary);
      const background = own.background ?? inEffect(pair.background);
      const ratio = contrast(primary, background);
      if (ratio >= AA_TEXT) continue;
      const field = changed.has(pair.primary) ? pair.primary : pair.background;
      throw badRequest(
        `${field}: ${row.name} (${row.id}), below this company, sets its own ${own.primary === undefined ? 'background' : 'primary colour'} and would show the primary colour ${primary} on the ${pair.theme} background ${background}, a contrast ratio of ${ratioText(ratio)}; WCAG AA asks at least ${AA_TEXT}:1 for text. Choose other colours, or change that company's first.`,
      ).as('branding.contrastDescendant', { field, company: row.id, companyName: row.name, primary, background, theme: pair.theme, ratio: ratioText(ratio), minimum: `${AA_TEXT}:1` });
    }
  }
}

/**
 * One audit record of a change to the company's branding or templates, where the log keeps a
 * company's own changes (as the trigger of companies does): its parent's log, the root's own.
 */
async function auditCompany(tx: Queryable, companyId: string, action: string, changes: Record<string, unknown>) {
  const { rows } = await tx.query<{ log: string }>(`SELECT coalesce(parent, id) AS log FROM companies WHERE id = $1`, [companyId]);
  await recordAudit(tx, { companyId: rows[0].log, domainId: null, resourceType: 'companies', resourceId: companyId, action, changes });
}

/** The raw body of an image upload, kept off request.body (whose checks walk every key). */
const uploads = new WeakMap<FastifyRequest, Buffer>();

export async function brandingRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const tags = ['branding'];
  const url = '/companys/:companyId/branding';
  const companyParams = params('companyId');

  // an image upload is its raw bytes, whatever Content-Type it declares (the bytes say what it is)
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    uploads.set(request, body as Buffer);
    done(null, undefined);
  });

  app.get<{ Params: CompanyParams }>(
    url,
    { config: { permission: 'companies:read' }, schema: { tags, summary: "The company's branding: its own fields and the effective ones, inherited", params: companyParams, response: { 200: brandingSchema, ...errorResponses } } },
    async (request) => brandingRecord(db, request.params.companyId, request.principal.companyId),
  );

  app.put<{ Params: CompanyParams; Body: Partial<Record<TextField, string | null>> }>(
    url,
    {
      config: { permission: 'branding:write' },
      schema: {
        tags,
        summary: "Changes the company's branding: the fields given (null: inherit), the others kept",
        params: companyParams,
        body: { type: 'object', additionalProperties: false, properties: ownProperties },
        response: { 200: brandingSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { companyId } = request.params;
      await db.transaction(async (tx) => {
        // FOR UPDATE: two writes of one company take turns. FOR SHARE on its ancestors: a write of
        // an ancestor's colours (which checks this company's, checkDescendants) and this one's take
        // turns too, so that neither checks against colours the other is changing
        await tx.query(`SELECT 1 FROM companies WHERE id = ANY ((SELECT ancestors FROM companies WHERE id = $1)::text[]) AND id <> $1 ORDER BY id FOR SHARE`, [companyId]);
        await tx.query(`SELECT 1 FROM companies WHERE id = $1 FOR UPDATE`, [companyId]);
        const before = ownFieldsOf(await ownRow(tx, companyId));
        const after = { ...before };
        for (const field of TEXT_FIELDS) if (request.body[field] !== undefined) after[field] = checkField(field, request.body[field]);
        const changed = new Set(TEXT_FIELDS.filter((field) => before[field] !== after[field]));
        if (changed.size === 0) return;
        await checkContrast(tx, companyId, after, changed);
        const columns = Object.values(TEXT_COLUMNS);
        await tx.query(
          `INSERT INTO company_branding AS b (company_id, ${columns.join(', ')}) VALUES ($1, ${columns.map((_, i) => `$${i + 2}`).join(', ')})
           ON CONFLICT (company_id) DO UPDATE SET ${columns.map((column) => `${column} = excluded.${column}`).join(', ')}, version = b.version + 1, updated_at = now()`,
          [companyId, ...TEXT_FIELDS.map((field) => after[field])],
        );
        const changes = Object.fromEntries([...changed].map((field) => [field, { before: before[field], after: after[field] }]));
        await auditCompany(tx, companyId, 'branding', changes);
      });
      brandingChanged();
      return brandingRecord(db, companyId, request.principal.companyId);
    },
  );

  for (const kind of ['logo', 'icon'] as const satisfies ImageKind[]) {
    const imageRoute = `${url}/${kind}`;
    app.put<{ Params: CompanyParams }>(
      imageRoute,
      {
        config: { permission: 'branding:write' },
        bodyLimit: IMAGE_LIMITS[kind],
        // a declared length over the limit is refused before a byte is read, with a sentence
        preParsing: async (request) => {
          const length = Number(request.headers['content-length']);
          if (length > IMAGE_LIMITS[kind]) throw tooLarge(kind, length);
        },
        schema: {
          tags,
          summary: `Uploads the company's ${kind}: the raw image as the body (PNG, JPEG or WebP, at most ${IMAGE_LIMITS[kind] / 1024} KB; SVG refused)`,
          params: companyParams,
          response: { 200: brandingSchema, 413: errorResponse, ...errorResponses },
        },
      },
      async (request) => {
        const { companyId } = request.params;
        const image = checkImage(kind, uploads.get(request));
        await db.transaction(async (tx) => {
          const { rows } = await tx.query<{ type: string | null; size: number | null }>(
            `SELECT ${kind}_type AS type, octet_length(${kind}) AS size FROM company_branding WHERE company_id = $1 FOR UPDATE`,
            [companyId],
          );
          await tx.query(
            `INSERT INTO company_branding AS b (company_id, ${kind}, ${kind}_type) VALUES ($1, $2, $3)
             ON CONFLICT (company_id) DO UPDATE SET ${kind} = excluded.${kind}, ${kind}_type = excluded.${kind}_type, version = b.version + 1, updated_at = now()`,
            [companyId, image.bytes, image.type],
          );
          // the record says what changed, never the bytes
          const before = rows[0]?.type ? { type: rows[0].type, size: Number(rows[0].size) } : null;
          await auditCompany(tx, companyId, 'branding', { [kind]: { before, after: { type: image.type, size: image.bytes.length } } });
        });
        brandingChanged();
        return brandingRecord(db, companyId, request.principal.companyId);
      },
    );

    app.delete<{ Params: CompanyParams }>(
      imageRoute,
      { config: { permission: 'branding:write' }, schema: { tags, summary: `Removes the company's own ${kind}: it inherits its ancestors' again`, params: companyParams, response: { 200: brandingSchema, ...errorResponses } } },
      async (request) => {
        const { companyId } = request.params;
        await db.transaction(async (tx) => {
          const { rows } = await tx.query<{ type: string; size: number }>(
            `SELECT ${kind}_type AS type, octet_length(${kind}) AS size FROM company_branding WHERE company_id = $1 AND ${kind} IS NOT NULL FOR UPDATE`,
            [companyId],
          );
          if (!rows[0]) return;
          await tx.query(`UPDATE company_branding SET ${kind} = NULL, ${kind}_type = NULL, version = version + 1, updated_at = now() WHERE company_id = $1`, [companyId]);
          await auditCompany(tx, companyId, 'branding', { [kind]: { before: { type: rows[0].type, size: Number(rows[0].size) }, after: null } });
        });
        brandingChanged();
        return brandingRecord(db, companyId, request.principal.companyId);
      },
    );
  }

  // E-mail templates (docs/CONSOLE.md, "E-mail templates")
  const templatesUrl = '/companys/:companyId/emailTemplates';
  const record = (kind: Purpose, language: Language, template: { subject: string; body: string; source: string }) => ({
    id: `${kind}.${language}`,
    kind,
    language,
    subject: template.subject,
    body: template.body,
    source: template.source,
  });

  app.get<{ Params: CompanyParams }>(
    templatesUrl,
    {
      config: { permission: 'companies:read' },
      schema: { tags, summary: 'Every kind and language of e-mail, with the template the company sends (own, inherited or the default)', params: companyParams, response: { 200: { type: 'array', items: templateSchema }, ...errorResponses } },
    },
    async (request, reply) => {
      const { companyId } = request.params;
      const { rows } = await db.query<{ company_id: string; kind: Purpose; language: Language; subject: string; body: string }>(
        `SELECT t.company_id, t.kind, t.language, t.subject, t.body
           FROM companies c JOIN email_templates t ON t.company_id = ANY (c.ancestors)
          WHERE c.id = $1
          ORDER BY array_position(c.ancestors, t.company_id) DESC`,
        [companyId],
      );
      const list = PURPOSES.flatMap((kind) =>
        LANGUAGES.map((language) => {
          const found = rows.find((row) => row.kind === kind && row.language === language);
          if (!found) return record(kind, language, { ...DEFAULTS[language].templates[kind], source: 'default' });
          return record(kind, language, { subject: found.subject, body: found.body, source: found.company_id === companyId ? 'own' : 'inherited' });
        }),
      );
      reply.header('Content-Range', `emailTemplates 0-${list.length - 1}/${list.length}`);
      return list;
    },
  );

  app.put<{ Params: TemplateParams; Body: { subject: string; body: string } }>(
    `${templatesUrl}/:kind/:language`,
    { config: { permission: 'branding:write' }, schema: { tags, summary: "Sets the company's template of one kind of e-mail in one language", params: templateParams, body: templateBody, response: { 200: templateSchema, ...errorResponses } } },
    async (request) => {
      const { companyId, kind, language } = request.params;
      const template = { subject: request.body.subject, body: request.body.body };
      checkTemplate(kind, template);
      await db.transaction(async (tx) => {
        const { rows } = await tx.query<{ subject: string; body: string }>(
          `SELECT subject, body FROM email_templates WHERE company_id = $1 AND kind = $2 AND language = $3 FOR UPDATE`,
          [companyId, kind, language],
        );
        await tx.query(
          `INSERT INTO email_templates (company_id, kind, language, subject, body) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (company_id, kind, language) DO UPDATE SET subject = excluded.subject, body = excluded.body, updated_at = now()`,
          [companyId, kind, language, template.subject, template.body],
        );
        await auditCompany(tx, companyId, 'emailTemplate', { [`${kind}.${language}`]: { before: rows[0] ?? null, after: template } });
      });
      return record(kind, language, { ...template, source: 'own' });
    },
  );

  app.delete<{ Params: TemplateParams }>(
    `${templatesUrl}/:kind/:language`,
    { config: { permission: 'branding:write' }, schema: { tags, summary: "Removes the company's own template: the inherited one or the default is sent again", params: templateParams, response: { 200: templateSchema, ...errorResponses } } },
    async (request) => {
      const { companyId, kind, language } = request.params;
      await db.transaction(async (tx) => {
        const { rows } = await tx.query<{ subject: string; body: string }>(
          `DELETE FROM email_templates WHERE company_id = $1 AND kind = $2 AND language = $3 RETURNING subject, body`,
          [companyId, kind, language],
        );
        if (rows[0]) await auditCompany(tx, companyId, 'emailTemplate', { [`${kind}.${language}`]: { before: rows[0], after: null } });
      });
      return record(kind, language, await templateFor(db, companyId, kind, language));
    },
  );

  app.post<{ Params: TemplateParams; Body: { subject: string; body: string } }>(
    `${templatesUrl}/:kind/:language/preview`,
    {
      config: { permission: 'companies:read' },
      schema: {
        tags,
        summary: 'The message a template gives, with sample values and the company\'s branding (nothing is stored or sent)',
        params: templateParams,
        body: templateBody,
        response: { 200: { type: 'object', properties: { subject: { type: 'string' }, text: { type: 'string' }, html: { type: 'string' } } }, ...errorResponses },
      },
    },
    async (request) => {
      const { companyId, kind, language } = request.params;
      const template = { subject: request.body.subject, body: request.body.body };
      checkTemplate(kind, template);
      const branding = await messageBranding(db, companyId, app.ctx.config.publicUrl);
      const { rows } = await db.query<{ name: string }>(`SELECT display_name AS name FROM companies WHERE id = $1`, [companyId]);
      const companyName = branding.displayName ?? rows[0]?.name ?? companyId;
      return renderTemplate(kind, language, template, { ...SAMPLE, companyName, link: `${app.ctx.config.publicUrl}/account/sample?token=sample` }, branding);
    },
  );
}

/** The sample person of a preview. */
const SAMPLE = { personName: 'Alex Martin', login: 'alex.martin@example.com', email: 'alex.martin@example.com', connectionName: 'Okta' };
