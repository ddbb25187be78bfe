/** JSON-schema pieces shared by the management API routes (validation, serialization and OpenAPI). */

/** Ids that appear in paths: letters, digits, dot, dash, underscore; no path tricks. */
export const idPattern = '^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$';
export const id = { type: 'string', pattern: idPattern, maxLength: 128 } as const;
export const requiredText = (maxLength = 200) => ({ type: 'string', minLength: 1, maxLength, pattern: '\\S' }) as const;
export const optionalText = (maxLength = 2000) => ({ type: 'string', maxLength }) as const;
export const email = { type: 'string', format: 'email', maxLength: 254 } as const;
export const status = { type: 'string', enum: ['active', 'deleted'] } as const;

export const idList = { type: 'array', items: id, minItems: 1, maxItems: 1000 } as const;

export const errorResponse = {
  type: 'object',
  properties: { statusCode: { type: 'integer' }, error: { type: 'string' }, message: { type: 'string' } },
} as const;

export const errorResponses = { 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse, 409: errorResponse } as const;

export const params = (...names: string[]) =>
  ({ type: 'object', required: names, properties: Object.fromEntries(names.map((name) => [name, id])) }) as const;
