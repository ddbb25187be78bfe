import type { FastifyInstance } from 'fastify';
import { apiDefinition } from './apis.js';
import { applicationDefinition } from './applications.js';
import { companyDefinition } from './companies.js';
import { domainDefinition } from './domains.js';
import { groupDefinition } from './groups.js';
import { addListRoute, type RecordOf, type ResourceDefinition } from './resource.js';
import { userDefinition } from './users.js';

/**
 * The audit trail's read side (docs/CONSOLE.md, "History and audit log"): a company's log, newest
 * first, filterable by resource, actor, action and time. Read-only; the records are written by the
 * database (migration 15, server/api/audit.ts). An administrator reads the log of any company of
 * their subtree (the guard), never another tenant's.
 */
export const auditEventDefinition = {
  name: 'auditEvents',
  label: 'audit record',
  table: 'audit_events t',
  fields: {
    // bigint as text: JSON numbers lose precision past 2^53
    id: { column: 't.id::text' },
    occurredAt: { column: 't.occurred_at' },
    domainId: { column: 't.domain_id', type: 'nullableText' },
    resourceType: { column: 't.resource_type' },
    resourceId: { column: 't.resource_id' },
    action: { column: 't.action' },
    changes: { column: 't.changes', type: 'object', listed: false },
    actorUserId: { column: 't.actor_user_id', type: 'nullableText' },
    // not filterable, as no index leads with them: a rare value would read the company's whole log
    // (docs/PERFORMANCE.md, "Event lists at 10 million rows"); actorUserId is
    actorCompanyId: { column: 't.actor_company_id', type: 'nullableText', listed: false },
    actorDomainId: { column: 't.actor_domain_id', type: 'nullableText', listed: false },
    actorClientId: { column: 't.actor_client_id', type: 'nullableText', listed: false },
    actorIp: { column: 't.actor_ip', type: 'nullableText', listed: false },
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

export async function auditEventRoutes(app: FastifyInstance) {
  addListRoute(app, auditEventDefinition, {
    path: '/companys/:companyId/auditEvents',
    tags: ['auditEvents'],
    summary: "Changes made through this API to the company's records, newest first (read-only)",
    scope: { params: ['companyId'], where: ['t.company_id = $1'] },
    mapRow: withApiFieldNames,
  });
}
