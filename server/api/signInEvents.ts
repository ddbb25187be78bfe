import type { FastifyInstance } from 'fastify';
import { addListRoute, type RecordOf, type ResourceDefinition } from './resource.js';

/**
 * Sign-in events of a domain's applications (docs/CONSOLE.md, "Sign-ins and rights"): read-only,
 * written by the authorization server (server/oauth/signInEvents.ts). Events of an unknown client
 * have no tenant and are listed nowhere.
 */
export const signInEventDefinition = {
  name: 'signInEvents',
  permission: 'signInEvents',
  label: 'sign-in event',
  table: 'signin_events t',
  fields: {
    // bigint as text: JSON numbers lose precision past 2^53 (and lists filter ids as text, as everywhere)
    id: { column: 't.id::text' },
    occurredAt: { column: 't.occurred_at', time: true },
    outcome: { column: 't.outcome' },
    clientId: { column: 't.client_id', type: 'nullableText' },
    userId: { column: 't.user_id', type: 'nullableText' },
    // not filterable: no index of its own, and at 10 million events one rare value read the whole
    // domain (seconds; docs/PERFORMANCE.md, "Event lists at 10 million rows"). userId is.
    login: { column: 't.login', type: 'nullableText', listed: false },
    detail: { column: 't.detail', type: 'nullableText', listed: false },
    ip: { column: 't.ip', type: 'nullableText', listed: false },
    userAgent: { column: 't.user_agent', type: 'nullableText', listed: false },
    // the upstream connection the sign-in came through (docs/CONSOLE.md, "Connections"); not filterable, as login
    connectionId: { column: 't.connection_id', type: 'nullableText', listed: false },
  },
  key: ['t.company_id', 't.domain_id', 't.id'],
  // newest first, the order of the signin_events_list index
  defaultSort: 'occurredAt',
  defaultOrder: 'DESC',
} satisfies ResourceDefinition;

export type SignInEventRecord = RecordOf<typeof signInEventDefinition>;

export async function signInEventRoutes(app: FastifyInstance) {
  addListRoute(app, signInEventDefinition, {
    path: '/companys/:companyId/domainNames/:domainId/signInEvents',
    tags: ['signInEvents'],
    summary: 'Sign-in attempts at the applications of the domain, newest first (read-only)',
    scope: { params: ['companyId', 'domainId'], where: ['t.company_id = $1', 't.domain_id = $2'] },
  });
}
