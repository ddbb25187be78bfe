import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementAccess, registerGuard } from '../../server/api/guard.js';
import { parseListQuery, runList, sendList, type ListResource } from '../../server/api/list.js';
import { call, createTenant, startServer, tokenFor, type Tenant, type TestServer } from './helpers.js';

let server: TestServer;
let acme: Tenant;
beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme');
});
afterAll(() => server?.close());

const acmeUsers = '/api/companys/acme/domainNames/acme-domain/users';

describe('list routes check access in their count statement', () => {
  it('refuses a revoked grant and an inactive administrator with 401, before any row is sent', async () => {
    await createTenant(server, 'initech');
    const initechUsers = '/api/companys/initech/domainNames/initech-domain/users';
    const token = await tokenFor(server.ctx, { companyId: 'initech', domainId: 'initech-domain', userId: 'boss' });
    expect((await call(server, token, 'GET', initechUsers)).status).toBe(200);
    await server.db.query(`UPDATE oauth_grants SET revoked_at = now() WHERE user_id = 'boss' AND company_id = 'initech'`);
    const revoked = await call(server, token, 'GET', initechUsers); // the same token text, verified and remembered before
    expect(revoked.status).toBe(401);
    expect(revoked.body.message).toContain('revoked');
    expect(revoked.headers['content-range']).toBeUndefined();

    const fresh = await tokenFor(server.ctx, { companyId: 'initech', domainId: 'initech-domain', userId: 'boss' });
    await server.db.query(`UPDATE users SET status = 'deleted' WHERE company_id = 'initech' AND id = 'boss'`);
    expect((await call(server, fresh, 'GET', initechUsers)).status).toBe(401);
    await server.db.query(`UPDATE users SET status = 'active' WHERE company_id = 'initech' AND id = 'boss'`);
    // the deletion revoked the sign-in for good: recovering the user does not revive it
    expect((await call(server, fresh, 'GET', initechUsers)).status).toBe(401);
    const afterRecovery = await tokenFor(server.ctx, { companyId: 'initech', domainId: 'initech-domain', userId: 'boss' });
    expect((await call(server, afterRecovery, 'GET', initechUsers)).status).toBe(200);
  });

  it('refuses a token without the user:admin scope with auth.adminScope', async () => {
    const narrow = await tokenFor(server.ctx, { companyId: 'acme', domainId: 'acme-domain', userId: 'boss', scope: 'openid' });
    const refused = await call(server, narrow, 'GET', acmeUsers);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ message: 'This call needs the user:admin scope', code: 'auth.adminScope', params: { scope: 'user:admin' } });
  });

  it("answers another tenant's list with 404 and no rows, on every list route", async () => {
    for (const url of [
      '/api/companys/root/domainNames/default/users',
      '/api/companys/root/domainNames/default/groups',
      '/api/companys/root/domainNames/default/groups/administrators/members',
      '/api/companys/root/domainNames/default/groups/administrators/candidates?type=user',
      '/api/companys/root/childCompanys',
      '/api/companys/root/subtreeCompanys',
      '/api/companys/root/domainNames',
      '/api/root/default/application',
      '/api/root/application',
      '/api/root/default/api',
    ]) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await call(server, acme.adminToken, method, url);
        expect(res.status, `${method} ${url}`).toBe(404);
        expect(res.headers['content-range'], `${method} ${url}`).toBeUndefined();
      }
    }
  });

  it('refuses a token with a changed signature even after the genuine one was accepted', async () => {
    expect((await call(server, acme.adminToken, 'GET', acmeUsers)).status).toBe(200);
    const [header, payload, signature] = acme.adminToken.split('.');
    const flipped = `${header}.${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await call(server, flipped, 'GET', acmeUsers)).status).toBe(401);
  });

  it('refuses a remembered token once it has expired', async () => {
    const shortLived = await startServer({ accessTokenTtl: 3 });
    try {
      const token = shortLived.adminToken;
      expect((await call(shortLived, token, 'GET', '/api/companys/root/domainNames/default/users')).status).toBe(200);
      const { exp } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
      await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 200));
      expect((await call(shortLived, token, 'GET', '/api/companys/root/domainNames/default/users')).status).toBe(401);
    } finally {
      await shortLived.close();
    }
  });
});

describe('the guard fails closed', () => {
  it('answers 500, never the data, when a route defers its access check and does not run it', async () => {
    const app = Fastify();
    app.decorate('ctx', server.ctx);
    const resource: ListResource = {
      name: 'companys',
      table: 'companies t',
      select: 't.id',
      fields: { id: { column: 't.id' } },
      key: ['t.id'],
      defaultSort: 'id',
    };
    await app.register(
      async (api) => {
        registerGuard(api);
        api.get('/forgot/:companyId', { config: { permission: 'companies:read', accessInStatement: true } }, async (request, reply) => {
          const parsed = parseListQuery(resource, {}, []);
          return sendList(reply, 'companys', await runList(api.ctx.db, resource, parsed, [])); // no statementAccess(request)
        });
        api.get<{ Params: { companyId: string } }>('/checked/:companyId', { config: { permission: 'companies:read', accessInStatement: true } }, async (request, reply) => {
          const parsed = parseListQuery(resource, {}, []);
          return sendList(reply, 'companys', await runList(api.ctx.db, resource, parsed, [], statementAccess(request)));
        });
      },
      { prefix: '/api' },
    );
    const get = (url: string, token = server.adminToken) => app.inject({ url, headers: { authorization: `Bearer ${token}` } });
    const forgot = await get('/api/forgot/root');
    expect(forgot.statusCode).toBe(500);
    expect(forgot.body).not.toContain('acme');
    expect((await get('/api/checked/root')).statusCode).toBe(200);
    expect((await get('/api/checked/root', acme.adminToken)).statusCode).toBe(404);
    await app.close();
  });
});

describe('every route declares its permission', () => {
  it('a route without one stops the server from starting, and the OpenAPI document shows each one', async () => {
    const server = await startServer();
    const doc = (server.app as unknown as { swagger(): { paths: Record<string, Record<string, { 'x-permission'?: string; security?: unknown[] }>> } }).swagger();
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/')) continue;
      for (const [method, operation] of Object.entries(operations)) expect(operation['x-permission'], `${method} ${path}`).toMatch(/^(any|[A-Za-z]+:[a-z]+)$/);
    }
    await server.close();
    const app = Fastify();
    app.decorate('ctx', server.ctx);
    await expect(
      app.register(async (api) => {
        registerGuard(api);
        api.get('/undeclared', async () => ({}));
      }, { prefix: '/api' }).ready(),
    ).rejects.toThrow(/no permission declared/);
  });
});
