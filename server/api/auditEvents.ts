import type { FastifyInstance } from 'fastify';
import { apiDefinition } from './apis.js';
import { applicationDefinition } from './applications.js';
import { companyDefinition } from './companies.js';
import { domainDefinition } from './domains.js';
import { groupDefinition } from './groups.js';
import { statementAccess } from './guard.js';
import { type ListQuery, listQuerySchema, type ParsedList, parseListQuery, runList, sendList } from './list.js';
import { addExportRoute, listResource, wholeRecordsOnly, type RecordOf, recordSchema, type ResourceDefinition } from './resource.js';
import { errorResponses, params } from './schemas.js';
import { userDefinition } from './users.js';

/**
 * The audit trail's read side (docs/CONSOLE.md, "History and audit log"): a company's log, newest
 * first, filterable by resource, actor, action and time. Read-only; the records are written by the
 * database (migration 15, server/accounts/audit.ts). An administrator reads the log of any company of
 * their subtree (the guard), never another tenant's.
 *
 * Operators above the reader (docs/DECISIONS.md, "Operators above a company in its audit log"): when
 * the actor's company is outside the reader's subtree (an administrator of a parent company at work
 * in a customer), the record names that company and the actor's domain, and its actorUserId,
 * actorClientId and actorIp are null. The masking is SQL: `outside` is the actor's company only when
 * the reader's company (parameter $2 of every statement of the log, after the log's company, $1) is
 * not among its ancestors. A company that no longer exists cannot be above the reader (a parent is
 * deleted after its children, never moved), so a deleted company's operators stay visible to the
 * companies that held it.
 */
const VISIBLE = 'outside.id IS NULL';
/** A column of the actor that the reader sees only for an actor of their own subtree. */
const masked = (column: string) => `CASE WHEN ${VISIBLE} THEN ${column} END`;

export const auditEventDefinition = {
  name: 'auditEvents',
  permission: 'audit',
  label: 'audit record',
  table: 'audit_events t LEFT JOIN companies outside ON outside.id = t.actor_company_id AND NOT ($2 = ANY (outside.ancestors))',
  fields: {
    // bigint as text: JSON numbers lose precision past 2^53
    id: { column: 't.id::text' },
    occurredAt: { column: 't.occurred_at', time: true },
    domainId: { column: 't.domain_id', type: 'nullableText' },
    resourceType: { column: 't.resource_type' },
    resourceId: { column: 't.resource_id' },
    action: { column: 't.action' },
    changes: { column: 't.changes', type: 'object', listed: false },
    // masked: sorting by it puts an operator above the reader with the records of no actor, never
    // between the reader's own ids; a filter on it never matches them (visibleActorsOnly)
    actorUserId: { column: masked('t.actor_user_id'), type: 'nullableText' },
    // not filterable, as no index leads with them: a rare value would read the company's whole log
    // (docs/PERFORMANCE.md, "Event lists at 10 million rows"); actorUserId is
    actorCompanyId: { column: 't.actor_company_id', type: 'nullableText', listed: false },
    actorDomainId: { column: 't.actor_domain_id', type: 'nullableText', listed: false },
    actorClientId: { column: masked('t.actor_client_id'), type: 'nullableText', listed: false },
    actorIp: { column: masked('t.actor_ip'), type: 'nullableText', listed: false },
    // the roles the actor acted under, where the change was made (space-separated role ids)
    actorRoles: { column: masked('t.actor_roles'), type: 'nullableText', listed: false },
  },
  key: ['t.company_id', 't.id'],
  // newest first, the order of the audit_events_* indexes
  defaultSort: 'occurredAt',
  defaultOrder: 'DESC',
} satisfies ResourceDefinition;

export type AuditEventRecord = RecordOf<typeof auditEventDefinition>;

/** The resource types with records of their own, and the API's name of each column the triggers record. */
const RECORDED: Record<string, ResourceDefinition> = {
  companies: companyDefinition,
  domains: domainDefinition,
  users: userDefinition,
  groups: groupDefinition,
  applications: applicationDefinition,
  apis: apiDefinition,
};

/** Secret columns: recorded only as "changed", under the name the API writes them with. */
const SECRET_NAMES: Record<string, string> = {
  password_hash: 'password',
  client_secret_hash: 'client_secret',
  previous_secret_hash: 'previous_client_secret',
  signing_secret: 'signingSecret',
};

const FIELD_NAMES: Record<string, Record<string, string>> = Object.fromEntries(
  Object.entries(RECORDED).map(([type, definition]) => {
    const names: Record<string, string> = { ...SECRET_NAMES };
    for (const [name, field] of Object.entries(definition.fields)) {
      const column = /^t\.([a-z_]+)$/.exec(field.column)?.[1];
      if (column) names[column] = name;
    }
    return [type, names];
  }),
);

/** A record's changes with the field names of its resource type's API (display_name -> displayName). */
export function withApiFieldNames(row: Record<string, unknown>): Record<string, unknown> {
  const names = FIELD_NAMES[row.resourceType as string];
  const changes = row.changes as Record<string, unknown>;
  if (!names || !changes) return row;
  return { ...row, changes: Object.fromEntries(Object.entries(changes).map(([column, change]) => [names[column] ?? column, change])) };
}

const MASKED_ACTOR = auditEventDefinition.fields.actorUserId.column;

/**
 * A predicate on the masked actor (`CASE ... END = $3`, `= ANY ($3)`, `<> $3`...) as the same
 * predicate on the column, for actors of the reader's subtree only: the same rows (a masked value is
 * NULL, which no comparison matches), with the column bare so that audit_events_actor serves it.
 */
function visibleActorsOnly(parsed: ParsedList): ParsedList {
  const where = parsed.where.map((predicate) =>
    predicate.startsWith(`${MASKED_ACTOR} `) ? `(${VISIBLE} AND t.actor_user_id${predicate.slice(MASKED_ACTOR.length)})` : predicate,
  );
  return { ...parsed, where };
}

export async function auditEventRoutes(app: FastifyInstance) {
  // its rows are reshaped (withApiFieldNames reads their type and changes)
  const resource = wholeRecordsOnly(listResource(auditEventDefinition));
  const scope = ['t.company_id = $1'];
  // a list route as addListRoute makes them (resource.ts), with the reader's company as $2 and the actor filter rewritten
  app.get<{ Params: { companyId: string }; Querystring: ListQuery }>(
    '/companys/:companyId/auditEvents',
    {
      config: { permission: 'audit:read', accessInStatement: true },
      schema: {
        tags: ['auditEvents'],
        summary: "Changes made through this API to the company's records, newest first (read-only); an operator of a company above the reader's is named by company and domain only",
        params: params('companyId'),
        querystring: listQuerySchema,
        response: { 200: { type: 'array', items: recordSchema(auditEventDefinition) }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const parsed = visibleActorsOnly(parseListQuery(resource, request.query, [request.params.companyId, request.principal.companyId]));
      const result = await runList<Record<string, unknown>>(app.ctx.db, resource, parsed, scope, statementAccess(request));
      return sendList(reply, auditEventDefinition.name, { ...result, rows: result.rows.map(withApiFieldNames) });
    },
  );
  addExportRoute(app, auditEventDefinition, {
    path: '/companys/:companyId/auditEvents',
    tags: ['auditEvents'],
    params: { params: params('companyId') },
    permission: 'audit:read',
    mapRow: withApiFieldNames,
    list: (request, query) => ({
      resource,
      parsed: visibleActorsOnly(parseListQuery(resource, query, [(request.params as { companyId: string }).companyId, request.principal.companyId])),
      scope,
    }),
  });
}
