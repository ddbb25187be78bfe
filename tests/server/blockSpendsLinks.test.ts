import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';

/**
 * A block spends every outstanding link (docs/CONSOLE.md, "Account states"): a reset link or an
 * invitation mailed before the block opens nothing after the unblock; so does a soft delete.
 */
let server: TestServer;
let acme: Tenant;
const LINK = /http:\/\/localhost:8080(\/account\/(?:reset|invite|verify)\?token=[A-Za-z0-9_-]{43})/;

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  await server.db.query(`INSERT INTO users (company_id, domain_id, id, username, display_name, email) VALUES ('acme', $1, 'p1', 'p1', 'P1', 'p1@acme.example')`, [acme.domainId]);
}, 60_000);
afterAll(() => server?.close());

const user = () => `/api/companys/acme/domainNames/${acme.domainId}/users/p1`;
const newestLink = async () => {
  const { rows } = await server.db.query<{ text: string }>(`SELECT text_body AS text FROM mail_outbox WHERE recipient = 'p1@acme.example' ORDER BY created_at DESC, id DESC LIMIT 1`);
  return LINK.exec(rows[0].text)![1];
};

it.each([
  ['block then unblock', [['POST', 'block'], ['POST', 'unblock']]],
  ['soft delete then recover', [['PUT', 'status:deleted'], ['PUT', 'status:active']]],
] as const)('%s: the invitation mailed before opens nothing', async (_name, steps) => {
  expect((await call(server, acme.adminToken, 'POST', `${user()}/sendInvitation`, {})).status).toBe(200);
  const link = await newestLink();
  expect((await server.app.inject({ method: 'GET', url: link })).statusCode).toBe(200);
  for (const [method, step] of steps) {
    const response = step.startsWith('status:')
      ? await call(server, acme.adminToken, 'PUT', `/api/companys/acme/domainNames/${acme.domainId}/users`, [{ id: 'p1', status: step.slice(7) }])
      : await call(server, acme.adminToken, method, `${user()}/${step}`, {});
    expect(response.status, response.text).toBe(200);
  }
  const after = await server.app.inject({ method: 'GET', url: link });
  expect(after.statusCode).toBe(400);
  const { rows } = await server.db.query(`SELECT 1 FROM account_tokens WHERE user_id = 'p1' AND used_at IS NULL`);
  expect(rows).toEqual([]);
});
