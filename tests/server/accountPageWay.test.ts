import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startServer, type TestServer } from './helpers.js';
import { pageBrowser, setPassword } from './oauthHelpers.js';

/**
 * The account page as a person finds and uses it (docs/CONSOLE.md, "Multi-factor authentication and
 * the account page"): a way back to the console, times in her own time zone (written in UTC, shown
 * locally by its script), recovery codes she can copy or download, and a link to it from the page
 * that confirms a new password.
 */
let server: TestServer;
const PASSWORD = 'account page way 42';

beforeAll(async () => {
  server = await startServer();
  await createTenant(server, 'acme', 'root', 'customer');
  await setPassword(server, 'acme', 'acme-domain', 'worker', PASSWORD);
}, 120_000);
afterAll(() => server?.close());

describe('the account page', () => {
  it('has a way back, machine-readable times its script shows locally, and recovery codes to copy or download', async () => {
    const browser = pageBrowser(server);
    await browser.post('/account/login', { email: 'worker@acme.example', password: PASSWORD, company: 'acme' });
    const codes = await browser.post('/account/recovery');
    expect(codes.status).toBe(200);
    const listed = [...codes.body.matchAll(/<li><code>([^<]+)<\/code><\/li>/g)].map((match) => match[1]);
    expect(listed).toHaveLength(10);
    const download = /<a download="recovery-codes.txt" href="data:text\/plain;charset=utf-8,([^"]+)"/.exec(codes.body);
    expect(decodeURIComponent(download![1]).trim().split('\n')).toEqual(listed);
    expect(codes.body).toContain('data-copy="recovery-codes"');
    expect(codes.body).toContain('<script src="/account/page.js" defer></script>');

    const overview = await browser.get('/account');
    expect(overview.body).toContain('<a href="/dashboard">Go to the console</a>');
    expect(overview.body).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+Z">[^<]+ UTC<\/time>/);
    const script = await server.app.inject({ method: 'GET', url: '/account/page.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toContain('javascript');
    expect(script.body).toContain("querySelectorAll('time[datetime]')");
  });
});
