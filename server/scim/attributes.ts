/**
 * `attributes` and `excludedAttributes` (RFC 7644 "Attributes"): which attributes of each resource
 * an answer carries. `id` and `schemas` are always returned. Names are case-insensitive; a core
 * schema's URN prefix may be left out, an extension's attributes are named through its URN
 * (`urn:…:enterprise:2.0:User:department`).
 */

const CORE = /^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/i;
const EXTENSION = /^(urn:ietf:params:scim:schemas:extension:[^:]+:2\.0:[^:]+):(.+)$/i;
const ALWAYS = new Set(['id', 'schemas']);

export interface Selection {
  attributes?: string[][];
  excluded?: string[][];
}

const pathOf = (name: string): string[] => {
  const bare = name.trim().replace(CORE, '');
  const extension = EXTENSION.exec(bare);
  if (extension) return [extension[1].toLowerCase(), ...extension[2].toLowerCase().split('.')];
  return bare.toLowerCase().split('.');
};

const listOf = (raw: unknown): string[][] | undefined => {
  if (typeof raw !== 'string' || !raw.trim()) return undefined;
  return raw.split(',').filter((name) => name.trim()).slice(0, 100).map(pathOf);
};

export const selectionOf = (query: Record<string, unknown>): Selection => ({ attributes: listOf(query.attributes), excluded: listOf(query.excludedAttributes) });

/** Is a top-level attribute (members, groups) returned? Its reading can be skipped when not. */
export function wants(selection: Selection, name: string): boolean {
  const key = name.toLowerCase();
  if (selection.attributes && !selection.attributes.some((path) => path[0] === key)) return false;
  return !selection.excluded?.some((path) => path.length === 1 && path[0] === key);
}

const keyOf = (object: Record<string, unknown>, lower: string) => Object.keys(object).find((key) => key.toLowerCase() === lower);

function pick(source: Record<string, unknown>, target: Record<string, unknown>, path: string[]) {
  const key = keyOf(source, path[0]);
  if (key === undefined) return;
  const value = source[key];
  if (path.length === 1 || value === null || typeof value !== 'object') {
    target[key] = value;
    return;
  }
  if (Array.isArray(value)) {
    target[key] = value.map((item) => {
      if (!item || typeof item !== 'object') return item;
      const picked: Record<string, unknown> = {};
      pick(item as Record<string, unknown>, picked, path.slice(1));
      return picked;
    });
    return;
  }
  const inner = (target[key] ??= {}) as Record<string, unknown>;
  pick(value as Record<string, unknown>, inner, path.slice(1));
}

function drop(object: Record<string, unknown>, path: string[]) {
  const key = keyOf(object, path[0]);
  if (key === undefined) return;
  if (path.length === 1) {
    if (!ALWAYS.has(key)) delete object[key];
    return;
  }
  const value = object[key];
  for (const item of Array.isArray(value) ? value : [value]) if (item && typeof item === 'object') drop(item as Record<string, unknown>, path.slice(1));
}

/** The resource as the selection asks. */
export function project<T extends Record<string, unknown>>(resource: T, selection: Selection): Record<string, unknown> {
  let result: Record<string, unknown> = resource;
  if (selection.attributes) {
    result = { schemas: resource.schemas, id: resource.id };
    for (const path of selection.attributes) pick(resource, result, path);
  }
  if (selection.excluded) {
    if (result === resource) result = structuredClone(resource);
    for (const path of selection.excluded) drop(result, path);
  }
  return result;
}
