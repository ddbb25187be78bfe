import { type Filter, parse } from 'scim2-parse-filter';
import { invalidFilter, invalidValue } from './errors.js';

/**
 * SCIM filters (`filter=userName eq "bjensen"`) parsed by scim2-parse-filter, then translated to SQL
 * with bound parameters, attribute by attribute: only the attributes in the map below can be
 * filtered on (each one a column or an expression over alias t); any other is SCIM's 400
 * invalidFilter naming it. Sorting takes the same attributes.
 */

export interface Attribute {
  /** SQL over alias t. */
  sql: string;
  kind: 'text' | 'boolean' | 'time';
  /** SCIM's caseExact: false compares lower() to lower() (the username and e-mail indexes are on lower()). */
  caseExact?: boolean;
  /** A multi-valued attribute's match (members.value): a predicate given the operator's comparison of `x`. */
  exists?: (predicate: (column: string) => string) => string;
}

export type AttributeMap = Record<string, Attribute>;

const USER_URN = 'urn:ietf:params:scim:schemas:core:2.0:user:';
const GROUP_URN = 'urn:ietf:params:scim:schemas:core:2.0:group:';

const MAX_FILTER_LENGTH = 2000;
const MAX_FILTER_TERMS = 50;

/** The attribute a filter or sortBy names, by its lower-case path without the core schema's URN. */
export function attributeOf(map: AttributeMap, path: string): Attribute {
  let key = path.toLowerCase();
  for (const urn of [USER_URN, GROUP_URN]) if (key.startsWith(urn)) key = key.slice(urn.length);
  const attribute = map[key];
  if (!attribute) throw invalidFilter(`${path}: this attribute cannot be filtered or sorted on here (${Object.keys(map).join(', ')})`);
  return attribute;
}

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export function filterSql(map: AttributeMap, given: unknown, bind: (value: unknown) => string): string {
  if (typeof given !== 'string') throw invalidFilter('filter: give one filter');
  const text = given;
  if (!text.trim()) return 'true';
  if (text.length > MAX_FILTER_LENGTH) throw invalidFilter(`filter: longer than ${MAX_FILTER_LENGTH} characters`);
  let tree: Filter;
  try {
    tree = parse(text);
  } catch (error) {
    throw invalidFilter(`filter: ${(error as Error).message}`);
  }
  let terms = 0;
  const walk = (node: Filter, prefix: string): string => {
    if (++terms > MAX_FILTER_TERMS) throw invalidFilter(`filter: more than ${MAX_FILTER_TERMS} terms`);
    switch (node.op) {
      case 'and':
      case 'or':
        return `(${node.filters.map((child) => walk(child, prefix)).join(` ${node.op.toUpperCase()} `)})`;
      case 'not':
        return `(NOT coalesce(${walk(node.filter, prefix)}, false))`;
      case '[]':
        // emails[value eq "x"], members[value eq "y"]: the inner filter's attributes are the outer's sub-attributes
        return walk(node.valFilter, `${prefix}${node.attrPath}.`);
      default:
        return compare(map, `${prefix}${node.attrPath}`, node.op, node.op === 'pr' ? undefined : node.compValue, bind);
    }
  };
  return walk(tree, '');
}

function compare(map: AttributeMap, path: string, op: string, value: unknown, bind: (value: unknown) => string): string {
  const attribute = attributeOf(map, path);
  const predicate = (column: string): string => {
    if (op === 'pr') return attribute.kind === 'text' ? `(${column} IS NOT NULL AND ${column} <> '')` : `(${column} IS NOT NULL)`;
    if (value === null) {
      if (op === 'eq') return `(${column} IS NULL)`;
      if (op === 'ne') return `(${column} IS NOT NULL)`;
      throw invalidFilter(`${path}: null can only be compared with eq or ne`);
    }
    if (attribute.kind === 'boolean') {
      if (typeof value !== 'boolean') throw invalidFilter(`${path}: compare it with true or false`);
      if (op === 'eq') return `(${column} = ${bind(value)})`;
      if (op === 'ne') return `(${column} <> ${bind(value)})`;
      throw invalidFilter(`${path}: a boolean takes eq, ne or pr`);
    }
    if (typeof value !== 'string') throw invalidFilter(`${path}: compare it with a string`);
    if (value.includes('\u0000')) throw invalidFilter(`${path}: the value must not contain the NUL character`);
    if (attribute.kind === 'time') {
      const time = new Date(value);
      if (Number.isNaN(time.getTime())) throw invalidFilter(`${path}: "${value}" is not a date and time (xsd:dateTime)`);
      const ops: Record<string, string> = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' };
      if (!ops[op]) throw invalidFilter(`${path}: a date takes eq, ne, gt, ge, lt, le or pr`);
      return `(${column} ${ops[op]} ${bind(time.toISOString())}::timestamptz)`;
    }
    const exact = attribute.caseExact === true;
    const col = exact ? column : `lower(${column})`;
    const val = (text: string) => (exact ? bind(text) : `lower(${bind(text)})`);
    switch (op) {
      case 'eq':
        return `(${col} = ${val(value)})`;
      case 'ne':
        return `(${col} IS DISTINCT FROM ${val(value)})`;
      case 'co':
        return `(${col} LIKE ${val(`%${likeEscape(value)}%`)})`;
      case 'sw':
        return `(${col} LIKE ${val(`${likeEscape(value)}%`)})`;
      case 'ew':
        return `(${col} LIKE ${val(`%${likeEscape(value)}`)})`;
      case 'gt':
        return `(${col} > ${val(value)})`;
      case 'ge':
        return `(${col} >= ${val(value)})`;
      case 'lt':
        return `(${col} < ${val(value)})`;
      case 'le':
        return `(${col} <= ${val(value)})`;
      default:
        throw invalidFilter(`${path}: unknown operator ${op}`);
    }
  };
  return attribute.exists ? attribute.exists(predicate) : predicate(attribute.sql);
}

export interface Page {
  startIndex: number;
  count: number;
}

export const MAX_RESULTS = 1000;
const DEFAULT_COUNT = 100;

/** startIndex (1-based; less than 1 is 1) and count (0 to MAX_RESULTS; absent is 100), as RFC 7644 reads them. */
export function pageOf(query: Record<string, unknown>): Page {
  const integer = (name: string, fallback: number) => {
    const raw = query[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || Math.abs(value) > 2 ** 31) throw invalidValue(`${name}: "${String(raw).slice(0, 20)}" is not an integer`);
    return value;
  };
  return { startIndex: Math.max(1, integer('startIndex', 1)), count: Math.min(MAX_RESULTS, Math.max(0, integer('count', DEFAULT_COUNT))) };
}
