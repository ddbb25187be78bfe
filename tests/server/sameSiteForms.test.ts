import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSameSiteForms } from '../../server/oauth/sameSiteForms.js';
import { PUBLIC_URL, startServer, type TestServer } from './helpers.js';

/**
 * The hosted pages' forms take posts from the provider's own pages only, through one hook
 * (server/oauth/sameSiteForms.ts): every form route declares it, and a post that says it comes from
 * another site, by Sec-Fetch-Site or, from browsers that do not send it, by Origin, is refused 403
 * before its handler runs, on every one of them.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
}, 60_000);
afterAll(() => server?.close());

const FORMS = [
  '/oauth/login',
  '/oauth/signup',
  '/oauth/steps',
  '/oauth/pick',
  '/oauth/interaction/abc/login',
  '/oauth/interaction/abc/consent',
  '/oauth/interaction/abc/steps',
  '/account/forgot',
  '/account/reset',
  '/account/invite',
  '/account/verify',
  '/account/login',
  '/account/second-factor',
  '/account/totp',
  '/account/passkey',
  '/account/recovery',
  '/account/factors/abc/remove',
  '/account/logout',
  '/account/steps',
];

const post = (url: string, headers: Record<string, string>) =>
  server.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: 'email=a%40b.example&password=x' });

describe('one same-site check for every form of the hosted pages', () => {
  it('a form route of the hosted pages that does not declare it stops the server from starting', async () => {
    const bare = Fastify();
    registerSameSiteForms(bare, PUBLIC_URL);
    bare.post('/oauth/token', async () => 'an application calls this from anywhere');
    bare.post('/account/declared', { config: { sameSiteForm: 'refused' } }, async () => 'ok');
    expect(() => bare.post('/account/new-form', async () => 'ok')).toThrow(/declares config.sameSiteForm/);
    await bare.close();
  });

  it.each(FORMS)('%s: another site by Sec-Fetch-Site, or by Origin alone, is refused; our own page is not', async (url) => {
    const bySite = await post(url, { 'sec-fetch-site': 'cross-site' });
    expect(bySite.statusCode).toBe(403);
    expect(bySite.body).toContain('sent from another site');
    const byOrigin = await post(url, { origin: 'https://evil.example' });
    expect(byOrigin.statusCode).toBe(403);
    const same = await post(url, { 'sec-fetch-site': 'same-origin', origin: new URL(PUBLIC_URL).origin });
    expect(same.body).not.toContain('sent from another site');
    expect(same.statusCode).toBeLessThan(500);
  });
});
