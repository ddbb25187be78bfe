import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { browser } from '../authProvider/browser';
import { updateSession } from '../session/session';
import { openAccountPage } from './openAccountPage';

/** The user menu's My account (DECISIONS 44): the console's token in a header, never in the address. */
describe('openAccountPage', () => {
  let assign: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    assign = vi.spyOn(browser, 'assign').mockImplementation(() => undefined);
    updateSession({ accessToken: 'the-access-token', client: { client_id: 'iam-console', companyId: 'acme', domain: 'acme-domain' } });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    sessionStorage.clear();
    updateSession({});
  });

  it("posts the console's token in the Authorization header and goes where the provider says", async () => {
    const fetch = vi.fn(async () => new Response(JSON.stringify({ location: '/account' }), { status: 200 }));
    vi.stubGlobal('fetch', fetch);
    await openAccountPage();
    expect(fetch).toHaveBeenCalledWith('/account/console', expect.objectContaining({ method: 'POST', headers: { Authorization: 'Bearer the-access-token' } }));
    expect(assign).toHaveBeenCalledWith('/account');
    expect(String(assign.mock.calls[0][0])).not.toContain('the-access-token');
  });

  it('takes a sign-in given to it (the Not an administrator page) and falls back to the link given', async () => {
    const fetch = vi.fn(async () => new Response('{}', { status: 401 }));
    vi.stubGlobal('fetch', fetch);
    await openAccountPage({ accessToken: 'her-token', fallback: '/account' });
    expect(fetch).toHaveBeenCalledWith('/account/console', expect.objectContaining({ headers: { Authorization: 'Bearer her-token' } }));
    expect(assign).toHaveBeenCalledWith('/account');
  });

  it('goes to the required action the provider names first', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify({ location: '/account/steps' }), { status: 200 })));
    await openAccountPage();
    expect(assign).toHaveBeenCalledWith('/account/steps');
  });

  it('falls back to the plain link (the password form of her organization) when the sign-in is refused or the answer names another place', async () => {
    for (const answer of [new Response('{}', { status: 401 }), new Response(JSON.stringify({ location: 'https://evil.example/' }), { status: 200 })]) {
      assign.mockClear();
      vi.stubGlobal('fetch', vi.fn(async () => answer));
      await openAccountPage();
      expect(assign).toHaveBeenCalledWith('/account?company=acme&domain=acme-domain');
    }
    assign.mockClear();
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('network'))));
    await openAccountPage();
    expect(assign).toHaveBeenCalledWith('/account?company=acme&domain=acme-domain');
  });
});
