import type { Queryable } from '../db/index.js';

/**
 * A company's branding as its people and its customers' people see it (docs/CONSOLE.md,
 * "Branding"): each field from the company itself or from its nearest ancestor that sets it (a
 * customer without its own shows its reseller's). The logo and icon addresses are root-relative and
 * carry the version of the company whose image it is, so that a cache may keep them long.
 */
export interface EffectiveBranding {
  displayName?: string;
  logoUrl?: string;
  iconUrl?: string;
  primaryLight?: string;
  backgroundLight?: string;
  primaryDark?: string;
  backgroundDark?: string;
  supportEmail?: string;
  supportUrl?: string;
}

export type BrandingField = keyof EffectiveBranding;

/** The text fields and their columns (the images are logoUrl and iconUrl). */
export const TEXT_COLUMNS = {
  displayName: 'display_name',
  primaryLight: 'primary_light',
  backgroundLight: 'background_light',
  primaryDark: 'primary_dark',
  backgroundDark: 'background_dark',
  supportEmail: 'support_email',
  supportUrl: 'support_url',
} as const;
export type TextField = keyof typeof TEXT_COLUMNS;
export const TEXT_FIELDS = Object.keys(TEXT_COLUMNS) as TextField[];

export type ImageKind = 'logo' | 'icon';

/** Each field with the company it comes from. */
export type ResolvedBranding = EffectiveBranding & { inheritedFrom: Partial<Record<BrandingField, string>> };

interface Row {
  company_id: string;
  version: number;
  has_logo: boolean;
  has_icon: boolean;
  [column: string]: unknown;
}

/** Root-relative address of the image of the company that holds it, at its version. */
export const imageUrl = (companyId: string, kind: ImageKind, version: number) => `/branding/${encodeURIComponent(companyId)}/${kind}?v=${version}`;

/**
 * The branding rows of the company and of its ancestors, nearest first: one query along
 * companies.ancestors (which holds the company itself last).
 */
async function chain(db: Queryable, companyId: string): Promise<Row[]> {
  const { rows } = await db.query<Row>(
    `SELECT b.company_id, b.version, ${Object.values(TEXT_COLUMNS).map((column) => `b.${column}`).join(', ')},
            b.logo IS NOT NULL AS has_logo, b.icon IS NOT NULL AS has_icon
       FROM companies c JOIN company_branding b ON b.company_id = ANY (c.ancestors)
      WHERE c.id = $1
      ORDER BY array_position(c.ancestors, b.company_id) DESC`,
    [companyId],
  );
  return rows;
}

function resolve(rows: Row[]): ResolvedBranding {
  const result: ResolvedBranding = { inheritedFrom: {} };
  for (const field of TEXT_FIELDS) {
    const row = rows.find((r) => r[TEXT_COLUMNS[field]] != null);
    if (!row) continue;
    result[field] = row[TEXT_COLUMNS[field]] as string;
    result.inheritedFrom[field] = row.company_id;
  }
  for (const kind of ['logo', 'icon'] as const) {
    const row = rows.find((r) => (kind === 'logo' ? r.has_logo : r.has_icon));
    if (!row) continue;
    const field = kind === 'logo' ? 'logoUrl' : 'iconUrl';
    result[field] = imageUrl(row.company_id, kind, row.version);
    result.inheritedFrom[field] = row.company_id;
  }
  return result;
}

/**
 * Answers are kept a few seconds per database (the hosted pages and e-mails ask often); every
 * branding write in this process empties the cache, another instance's write is seen within TTL_MS.
 */
const TTL_MS = 5_000;
const MAX_ENTRIES = 5_000;
let caches = new WeakMap<object, Map<string, { at: number; value: ResolvedBranding }>>();
let generation = 0;
let cachedGeneration = 0;

/** Called by every branding write (routes.ts). */
export function brandingChanged(): void {
  generation++;
}

/** The effective branding with, for each field, the company it comes from. */
export async function resolvedBranding(db: Queryable, companyId: string): Promise<ResolvedBranding> {
  if (cachedGeneration !== generation) {
    // a WeakMap cannot be cleared: a new generation starts every cache afresh
    cachedGeneration = generation;
    caches = new WeakMap();
  }
  let cache = caches.get(db);
  const hit = cache?.get(companyId);
  if (hit && Date.now() - hit.at < TTL_MS) return { ...hit.value, inheritedFrom: { ...hit.value.inheritedFrom } };
  const value = resolve(await chain(db, companyId));
  if (!cache) caches.set(db, (cache = new Map()));
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(companyId, { at: Date.now(), value });
  return { ...value, inheritedFrom: { ...value.inheritedFrom } };
}

/** The same read afresh, without the cache: a write's checks see what is committed (routes.ts, contrast). */
export async function currentBranding(db: Queryable, companyId: string): Promise<ResolvedBranding> {
  return resolve(await chain(db, companyId));
}

/** The contract of docs/CONSOLE.md, "Branding": each field from the company or its nearest ancestor that sets it. */
export async function effectiveBranding(db: Queryable, companyId: string): Promise<EffectiveBranding> {
  const { inheritedFrom: _, ...effective } = await resolvedBranding(db, companyId);
  return effective;
}
