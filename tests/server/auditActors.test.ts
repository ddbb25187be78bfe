import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';

/**
 * Operators above a company in its audit log (security issue 25, hole 9; docs/DECISIONS.md): when
 * the actor of a record belongs to a company outside the reader's subtree (an administrator of a
 * parent company at work in a customer), the reader sees that company and the actor's domain, not
 * the actor's user id, application or IP address; readers whose subtree holds the actor's company
 * see everything. The same in the log, a record's history, and under filters on the actor.
 */
let server: TestServer;
let reseller: Tenant;
let customer: Tenant;

const log = '/api/companys/custx/auditEvents';
const user = '/api/companys/custx/domainNames/custx-domain/users/worker';
const history = `${log}?filter=${encodeURIComponent(JSON.stringify({ resourceType: 'users', resourceId: 'worker' }))}&range=[0,99]`;

interface AuditRecord {
  action: string;
  changes: Record<string, { after?: unknown }>;
  actorUserId: string | null;
  actorCompanyId: string | null;
  actorDomainId: string | null;
  actorClientId: string | null;
  actorIp: string | null;
}

/** The records of the worker's three display name changes, keyed by the name each one set. */
async function changes(token: string, url = history) {
  const response = await call(server, token, 'GET', url);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const byName: Record<string, AuditRecord> = {};
  for (const record of response.body as AuditRecord[]) {
    const after = record.changes.displayName?.after;
    if (typeof after === 'string') byName[after] = record;
  }
  return byName;
}

const rename = (token: string, displayName: string) => call(server, token, 'PUT', user, { username: 'worker', displayName, email: 'worker@custx.example' });

const visible = (userId: string, companyId: string, domainId: string) => ({
  actorUserId: userId,
  actorCompanyId: companyId,
  actorDomainId: domainId,
  actorClientId: 'iam-console',
  actorIp: '127.0.0.1',
});
const masked = (companyId: string, domainId: string) => ({ actorUserId: null, actorCompanyId: companyId, actorDomainId: domainId, actorClientId: null, actorIp: null });

beforeAll(async () => {
  server = await startServer();
  // root > resell (a reseller) > custx (its customer)
  reseller = await createTenant(server, 'resell', 'root', 'reseller');
  customer = await createTenant(server, 'custx', 'resell', 'customer');
  for (const [token, name] of [
    [server.adminToken, 'by root'],
    [reseller.adminToken, 'by the reseller'],
    [customer.adminToken, 'by the customer'],
  ] as const) {
    const response = await rename(token, name);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  }
}, 60_000);
afterAll(() => server?.close());

describe("a customer's administrator reading the log", () => {
  it("sees an operator of a company above as that company and domain only; root sees everything", async () => {
    for (const url of [history, `${log}?range=[0,99]`]) {
      const seen = await changes(customer.adminToken, url);
      expect(seen['by root'], url).toMatchObject(masked('root', 'default'));
      expect(seen['by the reseller'], url).toMatchObject(masked('resell', 'resell-domain'));
      expect(seen['by the customer'], url).toMatchObject(visible('boss', 'custx', 'custx-domain'));
      for (const record of Object.values(seen)) expect(JSON.stringify(record)).not.toContain('admin@example.com');
    }
    // the QUERY twin reads the same
    const query = await server.app.inject({
      method: 'QUERY' as never,
      url: log,
      headers: { authorization: `Bearer ${customer.adminToken}`, 'content-type': 'application/json' },
      payload: { filter: { resourceType: 'users', resourceId: 'worker' } },
    });
    expect(query.statusCode).toBe(200);
    const fromRootByQuery = (query.json() as AuditRecord[]).find((record) => record.changes.displayName?.after === 'by root');
    expect(fromRootByQuery).toMatchObject(masked('root', 'default'));

    const root = await changes(server.adminToken);
    expect(root['by root']).toMatchObject(visible('admin', 'root', 'default'));
    expect(root['by the reseller']).toMatchObject(visible('boss', 'resell', 'resell-domain'));
    expect(root['by the customer']).toMatchObject(visible('boss', 'custx', 'custx-domain'));
  });

  it("a reseller's administrator sees their own operators and their customer's, not root's", async () => {
    const seen = await changes(reseller.adminToken);
    expect(seen['by root']).toMatchObject(masked('root', 'default'));
    expect(seen['by the reseller']).toMatchObject(visible('boss', 'resell', 'resell-domain'));
    expect(seen['by the customer']).toMatchObject(visible('boss', 'custx', 'custx-domain'));
  });

  it("cannot find a masked record by filtering, sorting or conditioning on the actor's id", async () => {
    const probe = async (query: string) => {
      const response = await call(server, customer.adminToken, 'GET', `${log}?range=[0,99]&${query}`);
      expect(response.status, `${query}: ${JSON.stringify(response.body)}`).toBe(200);
      return response;
    };
    const filter = (value: object) => `filter=${encodeURIComponent(JSON.stringify(value))}`;
    // root's administrator is "admin"; the reseller's is "boss", as is the customer's own
    for (const query of [
      filter({ actorUserId: 'admin' }),
      filter({ actorUserId: ['admin', 'nobody'] }),
      `condition=${encodeURIComponent('actorUserId,=,admin')}`,
      `condition=${encodeURIComponent('actorUserId,>=,a')}&condition=${encodeURIComponent('actorUserId,<=,b')}`,
    ]) {
      const response = await probe(query);
      expect(response.body, query).toEqual([]);
      expect(response.headers['content-range'], query).toBe('auditEvents */0');
    }
    for (const query of [filter({ actorUserId: 'boss' }), filter({ actorUserId: 'boss', resourceType: 'users' }), `condition=${encodeURIComponent('actorUserId,!=,nobody')}`]) {
      const records = (await probe(query)).body as AuditRecord[];
      expect(records.length, query).toBeGreaterThan(0);
      // only the customer's own boss: the reseller's, masked, is not among them
      expect(records.every((record) => record.actorCompanyId === 'custx' && record.actorUserId === 'boss'), query).toBe(true);
    }
    // sorted by the actor, a masked record sorts as one without an actor: last going up, first going down
    const up = (await probe(`sort=${encodeURIComponent('["actorUserId","ASC"]')}`)).body as AuditRecord[];
    const down = (await probe(`sort=${encodeURIComponent('["actorUserId","DESC"]')}`)).body as AuditRecord[];
    const firstMasked = up.findIndex((record) => record.actorUserId === null);
    expect(firstMasked).toBeGreaterThan(0);
    expect(up.slice(firstMasked).every((record) => record.actorUserId === null)).toBe(true);
    expect(down.slice(0, up.length - firstMasked).every((record) => record.actorUserId === null)).toBe(true);
    // the same filter as root finds root's own record
    const asRoot = await call(server, server.adminToken, 'GET', `${log}?${filter({ actorUserId: 'admin' })}`);
    expect((asRoot.body as AuditRecord[]).map((record) => record.changes.displayName?.after)).toEqual(['by root']);
  });
});
