import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider } from '../../authProvider/authProvider';
import { EVERY_PERMISSION, mockFetch, type RecordedRequest, type Responder } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import ConnectionView from './ConnectionView';
import ConnectionWizard from './ConnectionWizard';
import { connections } from './index';

const company = { id: 'acme', name: 'acme' };
const domain = { id: 'main', name: 'main' };
const BASE = '/api/companys/acme/domainNames/main/connections';
const CONNECTION_PERMISSIONS = ['connections:read', 'connections:write'];
/** GET /api/roles: who would be allowed, for the disabled controls' reasons. */
const ROLES = {
  roles: [{ id: 'owner', name: 'Owner', description: '', permissions: [...EVERY_PERMISSION, ...CONNECTION_PERMISSIONS] }],
  permissions: [...EVERY_PERMISSION, ...CONNECTION_PERMISSIONS],
};

const stored = {
  id: 'corp',
  displayName: 'Corp IdP',
  protocol: 'oidc',
  preset: 'custom',
  enabled: true,
  status: 'active',
  issuer: 'https://idp.corp.example',
  clientId: 'console-client',
  scopes: 'openid email profile',
  claimMapping: { groups: 'roles' },
  trustEmail: false,
  mfaFromIdp: true,
  sharedWithSubtree: false,
  hasSecret: true,
  callbackUrl: 'https://iam.example/oauth/upstream/acme/main/corp/callback',
  samlMetadataServedAt: 'https://iam.example/oauth/upstream/acme/main/corp/saml/metadata',
};

/** The provider as the contract says: creates echo with an id, reads answer the stored connection. */
function provider(extra: (request: RecordedRequest) => ReturnType<Responder> | undefined = () => undefined) {
  return mockFetch((request) => {
    const url = new URL(request.url, 'http://x');
    const answer = extra(request);
    if (answer) return answer;
    if (url.pathname === '/api/roles') return { json: ROLES };
    if (request.method === 'POST' && url.pathname === BASE) {
      return { status: 201, json: { ...JSON.parse(request.body!), id: 'new1', hasSecret: true, status: 'active', callbackUrl: `https://iam.example/oauth/upstream/acme/main/new1/callback` } };
    }
    if (request.method === 'PUT') return { json: { ...stored, ...JSON.parse(request.body!) } };
    if (url.pathname.endsWith('/emailDomains')) return { json: [] };
    if (url.pathname.startsWith(`${BASE}/corp`) && request.method === 'GET') return { json: stored };
    if (url.pathname.includes('/audit')) return { json: [], headers: { 'Content-Range': 'auditEvents */0' } };
    return { status: 404, json: { message: 'not found' } };
  }, { permissions: [...EVERY_PERMISSION, ...CONNECTION_PERMISSIONS] });
}

const writes = (requests: RecordedRequest[]) => requests.filter((request) => request.method !== 'GET');
const fill = (element: HTMLElement, value: string) => fireEvent.change(element, { target: { value } });
const openWizard = () => renderScreen(connections, ConnectionWizard, { pathname: connections.routes.form, state: { company, domain, mode: 'new' } });
const openView = (connection: object = stored, options = {}) =>
  renderScreen(connections, ConnectionView, { pathname: connections.routes.view!, state: { company, domain, connection, mode: 'view' } }, { notifications: true, ...options });

beforeEach(() => updateSession({ company, domain, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('connection wizard', () => {
  it('a preset fills protocol, issuer and scopes; the request sends what the preset needs and the typed secret', async () => {
    const { requests } = provider();
    const { locations } = openWizard();
    const next = () => userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByRole('group', { name: 'Identity provider' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();

    await userEvent.click(screen.getByRole('radio', { name: 'Google' }));
    await next();
    const settings = await screen.findByRole('group', { name: 'Settings' });
    // Google's issuer is fixed: no issuer input, its scopes and name filled
    expect(within(settings).queryByLabelText(/Issuer/)).toBeNull();
    expect(within(settings).getByLabelText(/^Name\W*$/)).toHaveValue('Google');
    expect(within(settings).getByLabelText(/^Scopes/)).toHaveValue('openid email profile');
    // Next refuses a step with required inputs empty
    await next();
    expect(within(settings).getByLabelText(/^Client ID/)).toHaveAccessibleDescription('Required');

    // back to the first step: another preset fills its own defaults
    await userEvent.click(screen.getByRole('button', { name: 'Previous' }));
    await userEvent.click(await screen.findByRole('radio', { name: 'Any OpenID Connect provider' }));
    await next();
    const oidc = await screen.findByRole('group', { name: 'Settings' });
    const issuer = within(oidc).getByLabelText(/^Issuer or discovery URL/);
    expect(issuer).toHaveValue('');
    expect(within(oidc).getByLabelText(/^Scopes/)).toHaveValue('openid email profile');
    fill(within(oidc).getByLabelText(/^Name\W*$/), 'Corp IdP');
    fill(issuer, 'idp.corp.example');
    fill(within(oidc).getByLabelText(/^Client ID/), 'console-client');
    const secret = within(oidc).getByLabelText(/^Client secret/);
    expect(secret).toHaveAttribute('type', 'password');
    fill(secret, 's3cret-value');
    fill(within(oidc).getByLabelText('Groups claim'), 'roles');
    await next();
    expect(issuer).toHaveAccessibleDescription('Enter a full web address (https://…)');
    fill(issuer, 'https://idp.corp.example/.well-known/openid-configuration');
    await next();

    const accounts = await screen.findByRole('group', { name: 'Accounts' });
    const trust = within(accounts).getByRole('switch', { name: 'Trust e-mail verification' });
    expect(trust).not.toBeChecked();
    expect(trust).toHaveAccessibleDescription(/Believe the provider's e-mail verification/);
    await userEvent.click(within(accounts).getByRole('switch', { name: "The provider's MFA is enough" }));
    await userEvent.click(screen.getByRole('button', { name: 'Finish' }));

    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    const [create] = writes(requests);
    expect(`${create.method} ${new URL(create.url, 'http://x').pathname}`).toBe(`POST ${BASE}`);
    expect(JSON.parse(create.body!)).toEqual({
      displayName: 'Corp IdP',
      preset: 'custom',
      protocol: 'oidc',
      enabled: true,
      issuer: 'https://idp.corp.example/.well-known/openid-configuration',
      clientId: 'console-client',
      clientSecret: 's3cret-value',
      scopes: 'openid email profile',
      claimMapping: { groups: 'roles' },
      trustEmail: false,
      mfaFromIdp: true,
      sharedWithSubtree: false,
    });
    // then its screen, where the callback to register is
    await waitFor(() => expect(locations.at(-1)).toBe('/connections-view'));
  }, 60_000);

  it('Entra ID for one tenant sends the tenant and its issuer; SAML sends the metadata and no client', async () => {
    const { requests } = provider();
    openWizard();
    await userEvent.click(await screen.findByRole('radio', { name: 'Microsoft Entra ID (one tenant)' }));
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    const settings = await screen.findByRole('group', { name: 'Settings' });
    fill(within(settings).getByLabelText(/^Tenant/), 'contoso.onmicrosoft.com');
    fill(within(settings).getByLabelText(/^Client ID/), 'app-id');
    fill(within(settings).getByLabelText(/^Client secret/), 'value');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Finish' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(JSON.parse(writes(requests)[0].body!)).toMatchObject({
      preset: 'entra',
      protocol: 'oidc',
      entraTenant: 'contoso.onmicrosoft.com',
      issuer: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0',
      trustEmail: false,
    });
    cleanup();

    const saml = provider();
    openWizard();
    await userEvent.click(await screen.findByRole('radio', { name: 'SAML 2.0' }));
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    const samlSettings = await screen.findByRole('group', { name: 'Settings' });
    expect(within(samlSettings).queryByLabelText(/Client secret/)).toBeNull();
    fill(within(samlSettings).getByLabelText(/^Name\W*$/), 'Corp SAML');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(within(samlSettings).getByLabelText(/^Metadata URL/)).toHaveAccessibleDescription('Give the metadata address or paste the metadata XML');
    fill(within(samlSettings).getByLabelText(/^Metadata XML/), '<EntityDescriptor/>');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Finish' }));
    await waitFor(() => expect(writes(saml.requests)).toHaveLength(1));
    const body = JSON.parse(writes(saml.requests)[0].body!);
    expect(body).toMatchObject({ protocol: 'saml', preset: 'custom', displayName: 'Corp SAML', samlMetadataXml: '<EntityDescriptor/>' });
    expect(body).not.toHaveProperty('clientId');
    expect(body).not.toHaveProperty('clientSecret');
  }, 60_000);
});

describe('connection screen', () => {
  it('shows the callback address to copy, never the secret, and an edit keeps the stored secret unless one is typed', async () => {
    const { requests } = provider();
    const writeText = vi.fn(async () => undefined);
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    openView();
    const callback = await screen.findByLabelText('Callback URL');
    expect(callback).toHaveValue(stored.callbackUrl);
    expect(callback).toHaveAttribute('readonly');
    await userEvent.click(screen.getByRole('button', { name: 'Copy Callback URL' }));
    expect(writeText).toHaveBeenCalledWith(stored.callbackUrl);

    await userEvent.click(screen.getByRole('tab', { name: 'Settings' }));
    const secret = await screen.findByLabelText('Client secret');
    expect(secret).toHaveValue('Set (never shown)');
    expect(screen.getByLabelText('Groups claim')).toHaveValue('roles');
    await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
    const editing = await screen.findByLabelText(/^Client secret/);
    expect(editing).toHaveAttribute('type', 'password');
    expect(editing).toHaveValue('');
    expect(editing).toHaveAccessibleDescription('Set: leave empty to keep it, or type a new one to replace it.');
    fill(screen.getByLabelText(/^Scopes/), 'openid email');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    const [update] = writes(requests);
    expect(`${update.method} ${new URL(update.url, 'http://x').pathname}`).toBe(`PUT ${BASE}/corp`);
    const body = JSON.parse(update.body!);
    expect(body.scopes).toBe('openid email');
    expect(body).not.toHaveProperty('clientSecret');
    expect(body).not.toHaveProperty('hasSecret');
    expect(document.body.textContent).not.toContain('s3cret');
  }, 60_000);

  it('Test sign-in asks the provider for the flow and opens it in a new window', async () => {
    const { requests } = provider((request) =>
      request.method === 'POST' && request.url.endsWith('/corp/test') ? { json: { url: 'https://iam.example/oauth/upstream/acme/main/corp/start?test=abc' } } : undefined,
    );
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    openView();
    await userEvent.click(await screen.findByRole('button', { name: 'Test sign-in' }));
    await waitFor(() => expect(open).toHaveBeenCalledWith('https://iam.example/oauth/upstream/acme/main/corp/start?test=abc', '_blank', 'noopener'));
    expect(writes(requests).map((request) => `${request.method} ${new URL(request.url, 'http://x').pathname}`)).toEqual([`POST ${BASE}/corp/test`]);
  });

  it('claims an e-mail domain, shows its TXT record, and confirms it after a confirmation', async () => {
    let claims: object[] = [];
    const { requests } = provider((request) => {
      const path = new URL(request.url, 'http://x').pathname;
      if (!path.startsWith(`${BASE}/corp/emailDomains`)) return undefined;
      if (request.method === 'POST' && path.endsWith('/emailDomains')) {
        claims = [{ emailDomain: 'corp.example', verificationToken: 'tok', txtRecord: '_iam-console-challenge.corp.example TXT iam-console-verification=tok', verifiedAt: null }];
        return { status: 201, json: claims[0] };
      }
      if (request.method === 'POST' && path.endsWith('/verify')) {
        claims = [{ emailDomain: 'corp.example', verifiedAt: '2026-11-29T05:00:00.000Z' }];
        return { json: claims[0] };
      }
      return { json: claims };
    });
    openView();
    await userEvent.click(await screen.findByRole('tab', { name: 'E-mail domains' }));
    expect(await screen.findByText('No e-mail domain claimed yet.')).toBeInTheDocument();
    fill(screen.getByLabelText('E-mail domain'), 'Corp.Example ');
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    expect(await screen.findByText('_iam-console-challenge.corp.example TXT iam-console-verification=tok')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Confirm corp.example' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('You confirm that corp.example belongs to this organization');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText(/^Verified /)).toBeInTheDocument();
    expect(writes(requests).map((request) => [new URL(request.url, 'http://x').pathname, JSON.parse(request.body!)])).toEqual([
      [`${BASE}/corp/emailDomains`, { emailDomain: 'corp.example' }],
      [`${BASE}/corp/emailDomains/corp.example/verify`, { method: 'confirm' }],
    ]);
  });
});

describe('a role without connections:write', () => {
  it('sees Finish, Edit, Test sign-in and the e-mail domain controls greyed out, saying which role would allow them', async () => {
    mockFetch(
      (request) => {
        const path = new URL(request.url, 'http://x').pathname;
        if (path === '/api/roles') return { json: ROLES };
        if (path.endsWith('/emailDomains')) return { json: [{ emailDomain: 'corp.example', txtRecord: 'x', verifiedAt: null }] };
        if (path === `${BASE}/corp`) return { json: stored };
        return { json: [], headers: { 'Content-Range': 'auditEvents */0' } };
      },
      { permissions: [...EVERY_PERMISSION.filter((permission) => !permission.startsWith('connections:')), 'connections:read'] },
    );
    openView(stored, { authProvider });
    const test = await screen.findByRole('button', { name: 'Test sign-in' });
    await waitFor(() => expect(test).toBeDisabled());
    await waitFor(() => expect(test.parentElement).toHaveAccessibleDescription('Needs the Owner role'));
    await userEvent.click(screen.getByRole('tab', { name: 'E-mail domains' }));
    const remove = await screen.findByRole('button', { name: 'Remove corp.example' });
    await waitFor(() => expect(remove).toBeDisabled());
    expect(screen.getByRole('button', { name: 'Confirm corp.example' })).toBeDisabled();
    expect(screen.getByLabelText('E-mail domain')).toBeDisabled();
    await userEvent.click(screen.getByRole('tab', { name: 'Settings' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Edit' })).toBeDisabled());
    cleanup();

    openWizardAs();
    await userEvent.click(await screen.findByRole('radio', { name: 'GitHub' }));
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    fill(await screen.findByLabelText(/^Client ID/), 'gh');
    fill(screen.getByLabelText(/^Client secret/), 'gh-secret');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    const finish = await screen.findByRole('button', { name: 'Finish' });
    await waitFor(() => expect(finish).toBeDisabled());
    expect(finish.parentElement).toHaveAccessibleDescription('Needs the Owner role');
  }, 60_000);
});

const openWizardAs = () =>
  renderScreen(connections, ConnectionWizard, { pathname: connections.routes.form, state: { company, domain, mode: 'new' } }, { authProvider });
