import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import Cookies from 'js-cookie';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { browser } from '../authProvider/browser';
import { OAUTH_KEYS } from '../authProvider/pkce';
import { COOKIE_NAMES } from '../authProvider/tokenCookie';
import { clearSession, getSession, updateSession } from '../session/session';
import { mockFetch } from '../test/fetchMock';
import Callback from './Callback';
import ErrorPage from './ErrorPage';
import Login from './Login';
import Logout from './Logout';
import NotFound from './NotFound';
import { ResetPassword, SignUp } from './NotOffered';
import { ORGANIZATION_KEY } from './Login';

let replace: ReturnType<typeof vi.spyOn>;
let assign: ReturnType<typeof vi.spyOn>;
let within: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  sessionStorage.clear();
  localStorage.clear();
  clearSession();
  replace = vi.spyOn(browser, 'replace').mockImplementation(() => undefined);
  assign = vi.spyOn(browser, 'assign').mockImplementation(() => undefined);
  within = vi.spyOn(browser, 'within').mockImplementation(() => undefined);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

describe('login page', () => {
  it('posts natively to the login endpoint with the OAuth hidden fields', async () => {
    const { container } = render(<Login />);
    const button = screen.getByRole('button', { name: 'Login' });
    await waitFor(() => expect(button).toBeEnabled());
    const form = container.querySelector('form')!;
    expect(form).toHaveAttribute('method', 'post');
    expect(form).toHaveAttribute('action', '/oauth/login');
    // an email input (usernames and internationalized addresses sign in on the hosted page)
    expect(screen.getByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(screen.getByRole('checkbox', { name: 'Remember me' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Signup' })).toHaveAttribute('href', '/signup');
    expect(screen.getByText('Forgot your password?')).toBeInTheDocument();
    expect(screen.getByText(/Terms Of Use/)).toBeInTheDocument();
    const hidden = Object.fromEntries(
      [...form.querySelectorAll<HTMLInputElement>('input[type=hidden]')].map((input) => [input.name, input.value]),
    );
    expect(hidden).toMatchObject({
      client_id: 'iam-console',
      redirect_uri: `${window.location.origin}/callback`,
      scope: 'openid username email email_verified user:admin',
      state: sessionStorage.getItem(OAUTH_KEYS.state),
      code_challenge_method: 'S256',
    });
    expect(hidden.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('remembers the Remember me tick before the native post', async () => {
    const { container } = render(<Login />);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled());
    const form = container.querySelector('form')!;
    form.addEventListener('submit', (event) => event.preventDefault());
    await userEvent.type(screen.getByLabelText('Email'), 'admin@example.com');
    await userEvent.type(screen.getByLabelText('Password'), 'secret');
    await userEvent.click(screen.getByRole('checkbox', { name: 'Remember me' }));
    await userEvent.click(screen.getByRole('button', { name: 'Login' }));
    expect(sessionStorage.getItem(OAUTH_KEYS.remember)).toBe('true');
    expect(sessionStorage.getItem(OAUTH_KEYS.email)).toBe('admin@example.com');
  });

  it('goes to /callback when an unexpired token cookie exists', () => {
    vi.spyOn(Cookies, 'get').mockReturnValue(
      JSON.stringify({ access_token: 'a.b.c', expires_at: Date.now() + 60_000 }) as never,
    );
    render(<Login />);
    expect(replace).toHaveBeenCalledWith('/callback');
  });

  it('removes an expired token cookie and shows the form', async () => {
    vi.spyOn(Cookies, 'get').mockReturnValue(JSON.stringify({ access_token: 'a.b.c', expires_at: Date.now() - 1 }) as never);
    const remove = vi.spyOn(Cookies, 'remove');
    render(<Login />);
    expect(remove).toHaveBeenCalledWith(COOKIE_NAMES.token, expect.anything());
    expect(replace).not.toHaveBeenCalled();
    expect(await screen.findByRole('button', { name: 'Login' })).toBeInTheDocument();
  });
});

describe('login page: the organization signed in to (docs/CONSOLE.md "Sign-in links")', () => {
  const fieldsOf = (form: HTMLFormElement) => Object.fromEntries(new FormData(form).entries());

  it('names no organization by default: no domain field, and the post sends an empty company', async () => {
    const { container } = render(<Login />);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled());
    expect(screen.getByLabelText('Organization (optional)')).toHaveValue('');
    expect(screen.queryByLabelText('Domain (optional)')).toBeNull();
    expect(fieldsOf(container.querySelector('form')!)).toMatchObject({ company: '' });
  });

  it('takes company and domain from a sign-in link and posts them', async () => {
    window.history.replaceState(null, '', '/login?company=globex&domain=prod');
    const { container } = render(<Login />);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled());
    expect(screen.getByLabelText('Organization (optional)')).toHaveValue('globex');
    expect(screen.getByLabelText('Domain (optional)')).toHaveValue('prod');
    expect(fieldsOf(container.querySelector('form')!)).toMatchObject({ company: 'globex', domain: 'prod' });
  });

  it('remembers the organization typed on this device, and a link wins over it', async () => {
    const { container, unmount } = render(<Login />);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled());
    container.querySelector('form')!.addEventListener('submit', (event) => event.preventDefault());
    await userEvent.type(screen.getByLabelText('Organization (optional)'), 'acme');
    // the domain field appears once a company is typed
    await userEvent.type(screen.getByLabelText('Domain (optional)'), 'eu');
    await userEvent.type(screen.getByLabelText('Email'), 'boss@acme.example');
    await userEvent.type(screen.getByLabelText('Password'), 'secret');
    await userEvent.click(screen.getByRole('button', { name: 'Login' }));
    expect(JSON.parse(localStorage.getItem(ORGANIZATION_KEY)!)).toEqual({ company: 'acme', domain: 'eu' });
    unmount();

    render(<Login />);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled());
    expect(screen.getByLabelText('Organization (optional)')).toHaveValue('acme');
    expect(screen.getByLabelText('Domain (optional)')).toHaveValue('eu');
    cleanup();

    window.history.replaceState(null, '', '/login?company=globex');
    render(<Login />);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled());
    expect(screen.getByLabelText('Organization (optional)')).toHaveValue('globex');
    expect(screen.getByLabelText('Domain (optional)')).toHaveValue('');
  });

  it('forgets the organization when the field is emptied, and a damaged entry', async () => {
    localStorage.setItem(ORGANIZATION_KEY, '{not json');
    const { container } = render(<Login />);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled());
    expect(screen.getByLabelText('Organization (optional)')).toHaveValue('');
    expect(localStorage.getItem(ORGANIZATION_KEY)).toBeNull();
    localStorage.setItem(ORGANIZATION_KEY, JSON.stringify({ company: 'old', domain: '' }));
    container.querySelector('form')!.addEventListener('submit', (event) => event.preventDefault());
    await userEvent.type(screen.getByLabelText('Email'), 'admin@example.com');
    await userEvent.type(screen.getByLabelText('Password'), 'secret');
    await userEvent.click(screen.getByRole('button', { name: 'Login' }));
    expect(localStorage.getItem(ORGANIZATION_KEY)).toBeNull();
  });
});

describe("login page: the organization's connections (docs/CONSOLE.md \"Connections\")", () => {
  const offered = [
    { id: 'corp', displayName: 'Corp IdP', preset: 'custom', protocol: 'oidc' },
    { id: 'gh', displayName: 'GitHub', preset: 'github', protocol: 'oauth2' },
  ];

  it('shows them as buttons once an organization is named; a button posts the same form with connection=<id>, no password needed', async () => {
    window.history.replaceState(null, '', '/login?company=acme&domain=main');
    const { requests } = mockFetch(() => ({ json: offered }));
    const { container } = render(<Login />);
    const corp = await screen.findByRole('button', { name: 'Sign in with Corp IdP' }, { timeout: 3000 });
    expect(screen.getByRole('button', { name: 'Sign in with GitHub' })).toBeInTheDocument();
    const [asked] = requests;
    expect(asked.url).toBe('/oauth/upstream/connections?company=acme&domain=main');
    // public: no token
    expect(asked.headers.get('Authorization')).toBeNull();

    await waitFor(() => expect(corp).toBeEnabled());
    const form = container.querySelector('form')!;
    let sent: Record<string, FormDataEntryValue> | undefined;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      sent = Object.fromEntries(new FormData(form, (event as SubmitEvent).submitter).entries());
    });
    // the password is optional: an address of a claimed e-mail domain goes to its identity provider
    expect(screen.getByLabelText('Password')).not.toBeRequired();
    // the browser sends it without an address too (formnovalidate); jsdom validates anyway, so one is typed
    expect(corp).toHaveAttribute('formnovalidate');
    await userEvent.type(screen.getByLabelText('Email'), 'ada@corp.example');
    await userEvent.click(corp);
    expect(sent).toMatchObject({ connection: 'corp', company: 'acme', domain: 'main', password: '', client_id: 'iam-console', code_challenge_method: 'S256' });
    expect(sent!.state).toBe(sessionStorage.getItem(OAUTH_KEYS.state));
  });

  it('shows none without an organization, and none when the provider cannot say', async () => {
    const { requests } = mockFetch(() => ({ status: 500, json: { message: 'down' } }));
    render(<Login />);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled());
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(requests).toHaveLength(0);
    await userEvent.type(screen.getByLabelText('Organization (optional)'), 'acme');
    await waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0].url).toBe('/oauth/upstream/connections?company=acme&domain=');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('button', { name: /^Sign in with/ })).toBeNull();
  });
});

describe('sign-up and password reset pages', () => {
  it.each([
    [SignUp, 'Create an account', /Sign-up is not open/],
  ])('%o says what is not offered and leads back to the sign-in form', async (Page, title, text) => {
    mockFetch(() => ({ json: { offered: false, url: null } }));
    render(<Page />);
    expect(await screen.findByRole('heading', { name: title })).toBeInTheDocument();
    expect(screen.getByText(text)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to sign-in' })).toHaveAttribute('href', '/login');
  });
});

describe('sign-up page when the organization offers it (docs/CONSOLE.md "Self sign-up")', () => {
  it("asks the provider for the organization of the link, then goes on to the provider's sign-up page", async () => {
    window.history.replaceState(null, '', '/signup?company=acme&domain=people');
    const { requests } = mockFetch(() => ({ json: { offered: true, url: '/oauth/signup?company=acme&domain=people' } }));
    render(<SignUp />);
    await waitFor(() => expect(replace).toHaveBeenCalledWith(`${window.location.origin}/oauth/signup?company=acme&domain=people`));
    expect(requests.map((request) => request.url)).toEqual([`${window.location.origin}/oauth/signup/offered?company=acme&domain=people`]);
  });

  it('stays on the words when the answer is not a sign-up page of the provider', async () => {
    mockFetch(() => ({ json: { offered: true, url: 'https://elsewhere.example/' } }));
    render(<SignUp />);
    expect(await screen.findByText(/Sign-up is not open/)).toBeInTheDocument();
    expect(replace).not.toHaveBeenCalled();
  });
});

describe('login page: why the form is shown again (docs/CONSOLE.md "Sign-in form")', () => {
  it('says a remembered sign-in is no longer valid, and does not try the remembered token again', async () => {
    vi.spyOn(Cookies, 'get').mockReturnValue(
      JSON.stringify({ access_token: 'a.b.c', expires_at: Date.now() + 60_000 }) as never,
    );
    window.history.replaceState(null, '', '/login?reason=expired');
    render(<Login />);
    expect(await screen.findByText('Your remembered sign-in is no longer valid. Sign in again.')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled());
    expect(replace).not.toHaveBeenCalled();
  });

  it('says the session was ended by the provider', async () => {
    window.history.replaceState(null, '', '/login?reason=ended');
    render(<Login />);
    expect(await screen.findByText(/Your session was ended by the provider/)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled());
  });

  it('links to the account page (second factors, recovery codes)', async () => {
    window.history.replaceState(null, '', '/login');
    render(<Login />);
    expect(screen.getByRole('link', { name: /Your account and security/ })).toHaveAttribute('href', expect.stringMatching(/\/account$/));
  });

  it('comes back after a refused sign-in saying why, with the address she typed', async () => {
    sessionStorage.setItem(OAUTH_KEYS.email, 'boss@acme.example');
    window.history.replaceState(null, '', '/login?reason=wrong');
    render(<Login />);
    expect(await screen.findByText('Wrong email or password.')).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveValue('boss@acme.example');
    cleanup();
    window.history.replaceState(null, '', '/login?reason=blocked');
    render(<Login />);
    expect(await screen.findByText(/This account is blocked/)).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveValue('boss@acme.example');
    // not without a refusal: a fresh form is empty
    cleanup();
    window.history.replaceState(null, '', '/login');
    render(<Login />);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled());
    expect(screen.getByLabelText('Email')).toHaveValue('');
  });

  it('says the throttle refused it, with the wait when the link has one, and keeps the address', async () => {
    sessionStorage.setItem(OAUTH_KEYS.email, 'boss@acme.example');
    for (const [search, sentence] of [
      ['reason=throttled&retry=3600', 'Too many sign-in attempts. Try again in 60 minutes.'],
      ['reason=throttled&retry=40', 'Too many sign-in attempts. Try again in 40 seconds.'],
      ['reason=throttled&retry=61', 'Too many sign-in attempts. Try again in 2 minutes.'],
      // a wait that is not a number of seconds says none: a link puts no words here
      ['reason=throttled&retry=soon%20or%20never', 'Too many sign-in attempts. Try again later.'],
      ['reason=throttled', 'Too many sign-in attempts. Try again later.'],
      ['reason=blocked', 'This account is blocked. Ask your administrator to unblock it.'],
    ]) {
      window.history.replaceState(null, '', `/login?${search}`);
      render(<Login />);
      expect(await screen.findByText(sentence)).toBeInTheDocument();
      expect(screen.getByLabelText('Email')).toHaveValue('boss@acme.example');
      cleanup();
    }
  });

  it('takes the organization of the shared link that sent her to sign in', async () => {
    localStorage.setItem(ORGANIZATION_KEY, JSON.stringify({ company: 'elsewhere', domain: '' }));
    sessionStorage.setItem(OAUTH_KEYS.returnTo, '/users/u1?company=acme&domain=people');
    window.history.replaceState(null, '', '/login');
    render(<Login />);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled());
    expect(screen.getByLabelText('Organization (optional)')).toHaveValue('acme');
    // not the record's domain: hers may be another of the company's
    expect(screen.getByLabelText('Domain (optional)')).toHaveValue('');
  });

  it.each(['nope', 'constructor', '__proto__', 'toString', '<b>Call 555</b>', ''])('shows nothing for the unknown reason %j', async (reason) => {
    window.history.replaceState(null, '', `/login?reason=${encodeURIComponent(reason)}`);
    const { container } = render(<Login />);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Login' })).toBeEnabled());
    expect(container.querySelector('.plain-page__error')).toBeNull();
    expect(container.textContent).not.toContain(reason || 'iam.');
    expect(container.textContent).not.toContain('iam.');
  });
});

describe('callback page', () => {
  it('shows the error message and a LogIn button back to /login', async () => {
    window.history.replaceState(null, '', '/callback?error=access_denied&error_description=Bad+credentials&state=x');
    render(<Callback />);
    expect(screen.getByRole('heading', { name: 'Logging.....' })).toBeInTheDocument();
    expect(await screen.findByText('Message: Bad credentials')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'LogIn' })).toHaveAttribute('href', '/login');
  });

  it.each([
    ['Wrong email or password', 'wrong'],
    ['This account is blocked. Ask your administrator to unblock it.', 'blocked'],
  ])('goes back to the form when the provider refuses what was typed (%s)', async (description, reason) => {
    sessionStorage.setItem(OAUTH_KEYS.email, 'boss@acme.example');
    sessionStorage.setItem(OAUTH_KEYS.state, 'x');
    window.history.replaceState(null, '', `/callback?${new URLSearchParams({ error: 'access_denied', error_description: description, state: 'x' })}`);
    render(<Callback />);
    await waitFor(() => expect(replace).toHaveBeenCalledWith(`/login?reason=${reason}`));
    // the address she typed is kept for the form; the spent request is not
    expect(sessionStorage.getItem(OAUTH_KEYS.email)).toBe('boss@acme.example');
    expect(sessionStorage.getItem(OAUTH_KEYS.state)).toBeNull();
  });

  it.each([
    ['Too many failed sign-in attempts. Try again in 60 minutes.', '3600', '/login?reason=throttled&retry=3600'],
    ['Too many sign-ins in a short time. Try again in 40 seconds.', '40', '/login?reason=throttled&retry=40'],
    // a wait that is no number of seconds is left out
    ['Too many failed sign-in attempts. Try again in 60 minutes.', 'x1', '/login?reason=throttled'],
    ['This account is blocked. Ask your administrator to unblock it.', null, '/login?reason=blocked'],
  ])('goes back to the form when the throttle or a block refuses it (%s, retry_after %s)', async (description, retryAfter, to) => {
    const query = new URLSearchParams({ error: 'access_denied', error_description: description, state: 'x', ...(retryAfter ? { retry_after: retryAfter } : {}) });
    window.history.replaceState(null, '', `/callback?${query}`);
    render(<Callback />);
    await waitFor(() => expect(replace).toHaveBeenCalledWith(to));
  });

  it('says Logged In. and opens the dashboard after the exchange', async () => {
    sessionStorage.setItem(OAUTH_KEYS.state, 's1');
    sessionStorage.setItem(OAUTH_KEYS.verifier, 'v'.repeat(43));
    mockFetch((request) => {
      if (request.url === '/oauth/token') {
        return {
          json: {
            access_token: 'x.e30.y',
            token_type: 'Bearer',
            expires_in: 3600,
            user: { displayName: 'Ada', email: 'a@b.c' },
            client: { client_id: 'iam-console', companyId: 'root', domain: 'default' },
          },
        };
      }
      return { json: { id: request.url.split('/').pop(), name: request.url.split('/').pop() } };
    });
    window.history.replaceState(null, '', '/callback?code=c9&state=s1');
    render(<Callback />);
    expect(await screen.findByRole('heading', { name: 'Logged In.' })).toBeInTheDocument();
    // into the admin app without a page load
    expect(within).toHaveBeenCalledWith('/dashboard');
    expect(replace).not.toHaveBeenCalled();
    expect(getSession().company?.id).toBe('root');
  });

  it('goes to /error when the exchange fails', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    sessionStorage.setItem(OAUTH_KEYS.state, 's1');
    sessionStorage.setItem(OAUTH_KEYS.verifier, 'v'.repeat(43));
    mockFetch(() => ({ status: 400, json: { statusCode: 400, error: 'invalid_grant', message: 'bad code' } }));
    window.history.replaceState(null, '', '/callback?code=c10&state=s1');
    render(<Callback />);
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/error'));
  });
});

describe('callback page: sign-ins that cannot go on (docs/CONSOLE.md "Callback")', () => {
  const tokenResponse = {
    access_token: 'x.e30.y',
    token_type: 'Bearer',
    expires_in: 3600,
    scope: 'openid username email',
    id_token: 'the.id.token',
    user: { displayName: 'Bea', email: 'bea@example.com' },
    client: { client_id: 'iam-console', companyId: 'acme', domain: 'default' },
  };

  it('goes back to the sign-in form with a reason when the remembered token is refused (401)', async () => {
    const remove = vi.spyOn(Cookies, 'remove');
    vi.spyOn(Cookies, 'get').mockReturnValue(JSON.stringify({ ...tokenResponse, expires_at: Date.now() + 60_000 }) as never);
    mockFetch(() => ({ status: 401, json: { statusCode: 401, error: 'Unauthorized', message: 'revoked' } }));
    window.history.replaceState(null, '', '/callback');
    render(<Callback />);
    await waitFor(() => expect(replace).toHaveBeenCalledWith('/login?reason=expired'));
    expect(remove.mock.calls.map(([name]) => name).sort()).toEqual([COOKIE_NAMES.email, COOKIE_NAMES.remember, COOKIE_NAMES.token].sort());
  });

  it('tells a non-administrator which company, and signs out properly to sign in as someone else', async () => {
    sessionStorage.setItem(OAUTH_KEYS.state, 's1');
    sessionStorage.setItem(OAUTH_KEYS.verifier, 'v'.repeat(43));
    const { requests } = mockFetch((request) => {
      if (request.url === '/oauth/token') return { json: tokenResponse };
      if (request.url === '/oauth/logout') return { status: 200 };
      return { status: 403, json: { statusCode: 403, error: 'Forbidden', message: 'the user:admin scope is required' } };
    });
    window.history.replaceState(null, '', '/callback?code=c-na&state=s1');
    render(<Callback />);
    expect(await screen.findByText('Your account is not an administrator of company acme.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Not an administrator' })).toBeInTheDocument();
    expect(replace).not.toHaveBeenCalled();
    // what she can do here instead: her own account page
    expect(screen.getByRole('link', { name: 'Your account and security' })).toHaveAttribute('href', expect.stringMatching(/\/account$/));
    await userEvent.click(screen.getByRole('button', { name: 'Sign in as someone else' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/login'));
    const logout = requests.find((request) => request.url === '/oauth/logout');
    expect(new URLSearchParams(logout?.body).get('id_token_hint')).toBe('the.id.token');
    expect(getSession()).toEqual({});
  });
});

describe('error page', () => {
  it('Back to sign-in clears the session and the remember cookies before going to the form', async () => {
    mockFetch(() => ({ status: 200 }));
    const remove = vi.spyOn(Cookies, 'remove');
    updateSession({ accessToken: 'x.e30.y', idToken: 'the.id.token' });
    render(<ErrorPage />);
    await userEvent.click(screen.getByRole('button', { name: 'Back to sign-in' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/login'));
    expect(getSession()).toEqual({});
    expect(remove).toHaveBeenCalledWith(COOKIE_NAMES.token, expect.anything());
  });
});

describe('logout page', () => {
  it('asks, then removes the token cookie and the session and goes to /', async () => {
    const remove = vi.spyOn(Cookies, 'remove');
    updateSession({ accessToken: 't' });
    render(<Logout />);
    expect(screen.getByRole('heading', { name: 'Do you want to logout now?' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/'));
    expect(remove).toHaveBeenCalledWith(COOKIE_NAMES.token, expect.anything());
    expect(getSession().accessToken).toBeUndefined();
  });

  it('ends the sign-in at the provider: posts the ID token to the end-session endpoint before leaving', async () => {
    const { requests } = mockFetch(() => ({ status: 200 }));
    updateSession({ accessToken: 't', idToken: 'the.id.token' });
    render(<Logout />);
    await userEvent.click(screen.getByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/'));
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: 'POST', url: '/oauth/logout' });
    expect(Object.fromEntries(new URLSearchParams(requests[0].body))).toEqual({ id_token_hint: 'the.id.token', client_id: 'iam-console' });
    expect(getSession()).toEqual({});
  });

  it('still signs out here when the provider cannot be reached', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))));
    updateSession({ accessToken: 't', idToken: 'the.id.token' });
    render(<Logout />);
    await userEvent.click(screen.getByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/'));
    expect(getSession()).toEqual({});
  });
});

describe('404 page', () => {
  it('shows the 404 texts of docs/CONSOLE.md and a link home', () => {
    render(<NotFound />);
    expect(screen.getByText('404')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Oops! There is something problem!' })).toBeInTheDocument();
    expect(screen.getByText('Please try again later!')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go To Home' })).toHaveAttribute('href', '/');
  });
});

describe('forgotten password (docs/CONSOLE.md "E-mail, reset links and invitations")', () => {
  it("/reset-password goes on to the provider's page, for the organization of the link", () => {
    window.history.replaceState(null, '', '/reset-password?company=acme&domain=people');
    render(<ResetPassword />);
    expect(replace).toHaveBeenCalledWith('/account/forgot?company=acme&domain=people');
  });

  it("the sign-in form's link carries the organization typed", async () => {
    window.history.replaceState(null, '', '/login?company=acme');
    render(<Login />);
    expect(screen.getByRole('link', { name: 'Forgot your password?' })).toHaveAttribute('href', '/account/forgot?company=acme');
  });
});
