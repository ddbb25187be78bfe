import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, type RecordedRequest } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import ApplicationForm from './ApplicationForm';
import { applications } from './index';

const company = { id: 'acme', name: 'acme', type: 'customer' };
const domain = { id: 'main', name: 'main', primary: true };
const domainList = [domain, { id: 'shop', name: 'shop', primary: false }];

/** Answers the domain list and echoes writes, as the provider does (the secret only in the 201). */
function provider(write: (request: RecordedRequest) => { status?: number; json?: unknown } = (request) => ({
  status: 201,
  json: JSON.parse(request.body!),
})) {
  return mockFetch((request) => {
    if (request.method === 'GET' && request.url.startsWith('/api/companys/acme/domainNames')) {
      return { json: domainList, headers: { 'Content-Range': `domainNames 0-1/2` } };
    }
    return write(request);
  });
}

const writes = (requests: RecordedRequest[]) => requests.filter((request) => request.method !== 'GET');
const open = (state: object) => renderScreen(applications, ApplicationForm, { pathname: applications.routes.form, state });
const step = (name: string) => screen.getByRole('group', { name });
/** Sets a field's whole text at once (typing key by key is slow under jsdom and MUI). */
const fill = (element: HTMLElement, value: string) => fireEvent.change(element, { target: { value } });

beforeEach(() => updateSession({ company, domain, accessToken: 't' }));
afterEach(() => {
  clearSession();
  vi.unstubAllGlobals();
});

describe('application wizard (new mode)', () => {
  it('blocks Next until the step is valid, keeps values on Previous, and shows the default values of docs/CONSOLE.md, "Constants"', async () => {
    const { requests } = provider();
    open({ company, domain, mode: 'new' });
    expect(await screen.findByRole('group', { name: 'Basic Information' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();

    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(await within(step('Basic Information')).findByText('Required')).toBeInTheDocument();
    expect(screen.queryByRole('group', { name: 'Application Properties' })).toBeNull();

    fill(screen.getByLabelText(/^Name/), 'Shop front');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    const properties = await screen.findByRole('group', { name: 'Application Properties' });
    expect(within(properties).getByLabelText(/ID Token Expiration/)).toHaveValue(36000);
    expect(within(properties).getByLabelText(/Refresh Reuse Interval/)).toHaveValue(0);
    expect(within(properties).getByLabelText(/Absolute Lifetime/)).toHaveValue(31557600);

    await userEvent.click(screen.getByRole('button', { name: 'Previous' }));
    expect(await screen.findByRole('group', { name: 'Basic Information' })).toBeVisible();
    expect(screen.getByLabelText(/^Name/)).toHaveValue('Shop front');
    expect(within(step('Basic Information')).getByRole('combobox', { name: /Application Type/ })).toHaveTextContent(
      'Single Page Web Applications',
    );
    expect(writes(requests)).toHaveLength(0);
  }, 60_000);

  it('generates a 32-character client id and secret, validates URIs, splits them on line breaks and shows the secret once', async () => {
    const { requests } = provider();
    const { locations } = open({ company, domain, mode: 'new' });
    fill(await screen.findByLabelText(/^Name/), 'Shop front');
    const clientId = (screen.getByLabelText(/Client ID/) as HTMLInputElement).value;
    const secret = (screen.getByLabelText(/Client Secret/) as HTMLInputElement).value;
    expect(clientId).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(secret).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(secret).not.toBe(clientId);

    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByRole('group', { name: 'Application Properties' });
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    const uris = await screen.findByRole('group', { name: 'Application URIs' });
    expect(screen.queryByRole('button', { name: 'Next' })).toBeNull();

    const callbacks = within(uris).getByLabelText(/Allowed Callback URIs/);
    fill(callbacks, 'https://shop.example/cb\nhttp://shop.example/other');
    await userEvent.click(screen.getByRole('button', { name: 'Finish' }));
    expect(
      await screen.findByText(
        'Allowed Callback URIs: "http://shop.example/other" must use https (http is allowed only for localhost, 127.0.0.1 and [::1])',
      ),
    ).toBeInTheDocument();
    expect(writes(requests)).toHaveLength(0);

    fill(callbacks, 'https://shop.example/cb\r\n\n  http://localhost:3000/cb  \n');
    fill(within(uris).getByLabelText(/Allowed Web Origins/), 'https://shop.example');
    await userEvent.click(screen.getByRole('button', { name: 'Finish' }));

    const dialog = await screen.findByRole('dialog');
    const [create] = writes(requests);
    expect(`${create.method} ${create.url}`).toBe('POST /api/application');
    const body = JSON.parse(create.body!);
    expect(body).toMatchObject({
      client_name: 'Shop front',
      client_id: clientId,
      id: clientId,
      client_secret: secret,
      companyId: 'acme',
      domain: 'main',
      app_type: 'SPA',
      id_token_expiration: 36000,
      refresh_reuse_interval: 0,
      refresh_absolute_lifetime: 31557600,
      redirect_uris: ['https://shop.example/cb', 'http://localhost:3000/cb'],
      allowed_web_orgins: ['https://shop.example'],
      client_logout_uri: [],
    });

    expect(dialog).toHaveTextContent("it won't be shown again");
    expect(within(dialog).getByLabelText('Client Secret')).toHaveValue(secret);
    expect(within(dialog).getByRole('button', { name: 'Copy' })).toBeEnabled();
    expect(locations.at(-1)).toBe(applications.routes.form);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(locations.at(-1)).toBe('/previous'));
    expect(screen.queryByText(secret)).toBeNull();
  }, 60_000);

  it("shows 'duplicated error: {client name} already exist!' on 409 and other errors' own message", async () => {
    let status = 409;
    const message = () => (status === 409 ? 'duplicated error: Shop front already exist!' : 'redirect_uris: "x" is not allowed');
    provider(() => ({ status, json: { statusCode: status, error: 'x', message: message() } }));
    open({ company, domain, mode: 'new' });
    fill(await screen.findByLabelText(/^Name/), 'Shop front');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Next' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Finish' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('duplicated error: Shop front already exist!');
    // a 400 naming a field lands under that field as a sentence, and the earlier alert goes away
    status = 400;
    await userEvent.click(screen.getByRole('button', { name: 'Finish' }));
    await waitFor(() =>
      expect(screen.getByLabelText(/Allowed Callback URIs/)).toHaveAccessibleDescription(
        'The provider refused this value: "x" is not allowed',
      ),
    );
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('goes back to the step of a field the provider refused, with the sentence under it', async () => {
    provider(() => ({ status: 400, json: { statusCode: 400, error: 'Bad Request', message: 'body/client_name must NOT have more than 200 characters' } }));
    open({ company, domain, mode: 'new' });
    fill(await screen.findByLabelText(/^Name/), 'Shop front');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Next' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Finish' }));
    await waitFor(() => expect(screen.getByLabelText(/^Name/)).toHaveAccessibleDescription('Use at most 200 characters'));
    expect(screen.getByRole('group', { name: 'Basic Information' })).toBeVisible();
  });

  it('offers the device code grant and a back-channel logout URI, and sends both', async () => {
    const { requests } = provider();
    open({ company, domain, mode: 'new' });
    fill(await screen.findByLabelText(/^Name/), 'Television');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    const properties = await screen.findByRole('group', { name: 'Application Properties' });
    const device = within(properties).getByRole('checkbox', { name: 'Device Code' });
    expect(device).not.toBeChecked();
    expect(within(properties).getByRole('checkbox', { name: 'Authorization Code' })).toBeChecked();
    expect(within(properties).getByRole('checkbox', { name: 'Passwordless OTP' })).not.toBeChecked();
    await userEvent.click(device);
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));

    const uris = await screen.findByRole('group', { name: 'Application URIs' });
    const backchannel = within(uris).getByLabelText(/Back-Channel Logout URI/);
    expect(backchannel).toHaveValue('');
    expect(backchannel).toHaveAccessibleDescription(/signed logout token/);
    fill(backchannel, 'logout');
    await userEvent.click(screen.getByRole('button', { name: 'Finish' }));
    await waitFor(() => expect(backchannel).toHaveAccessibleDescription(/^Enter a full web address/));
    expect(writes(requests)).toHaveLength(0);

    fill(backchannel, 'https://tv.example/backchannel');
    await userEvent.click(screen.getByRole('button', { name: 'Finish' }));
    await screen.findByRole('dialog');
    const body = JSON.parse(writes(requests)[0].body!);
    expect(body.grant_types).toEqual(['authorization_code', 'refresh_token', 'device_code']);
    expect(body.backchannel_logout_uri).toBe('https://tv.example/backchannel');
  }, 60_000);

  it('shows the provider refusing a back-channel logout URI under that field', async () => {
    provider(() => ({
      status: 400,
      json: {
        statusCode: 400,
        error: 'Bad Request',
        message: 'backchannel_logout_uri: "http://tv.example/bc" must use https (http is allowed only for localhost, 127.0.0.1 and [::1])',
      },
    }));
    open({ company, domain, mode: 'new' });
    fill(await screen.findByLabelText(/^Name/), 'Television');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Next' }));
    fill(await screen.findByLabelText(/Back-Channel Logout URI/), 'http://tv.example/bc');
    await userEvent.click(screen.getByRole('button', { name: 'Finish' }));
    await waitFor(() =>
      expect(screen.getByLabelText(/Back-Channel Logout URI/)).toHaveAccessibleDescription(
        'The provider refused this value: "http://tv.example/bc" must use https (http is allowed only for localhost, 127.0.0.1 and [::1])',
      ),
    );
  }, 60_000);

  it('checks numbers and web addresses in the browser before Next', async () => {
    const { requests } = provider();
    open({ company, domain, mode: 'new' });
    fill(await screen.findByLabelText(/^Name/), 'Shop front');
    fill(screen.getByLabelText(/^Logo/), 'logo.png');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(screen.getByLabelText(/^Logo/)).toHaveAccessibleDescription(/^Enter a full web address/));
    fill(screen.getByLabelText(/^Logo/), 'https://shop.example/logo.png');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    const lifetime = await screen.findByLabelText(/ID Token Expiration/);
    fill(lifetime, '0');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(lifetime).toHaveAccessibleDescription('Enter 1 or more'));
    expect(requests.filter((request) => request.method !== 'GET')).toHaveLength(0);
  });
});

describe('application form (view and edit modes)', () => {
  const application = {
    id: 'client0000000000000000000000000a',
    client_id: 'client0000000000000000000000000a',
    client_name: 'Shop front',
    domain: 'main',
    companyId: 'acme',
    description: '',
    logo_uri: '',
    app_type: 'web',
    client_uri: '',
    backchannel_logout_uri: 'https://shop.example/backchannel',
    client_logout_uri: [],
    redirect_uris: ['https://shop.example/cb'],
    allowed_web_orgins: [],
    id_token_expiration: 36000,
    refresh_token_rotation: false,
    refresh_reuse_interval: 0,
    refresh_absolute_expiration: false,
    refresh_absolute_lifetime: 31557600,
    grant_types: ['authorization_code'],
    audience: '',
    status: 'active',
  };

  it('shows three expandable sections read-only, then saves changed URIs with PUT after Edit', async () => {
    const { requests } = provider((request) => ({ json: { ...application, ...JSON.parse(request.body!) } }));
    const { locations } = open({ company, domain, application, mode: 'view' });
    for (const name of ['Basic Information', 'Application Properties', 'Application URIs']) {
      expect(await screen.findByRole('button', { name })).toHaveAttribute('aria-expanded', 'true');
    }
    expect(screen.queryByLabelText(/Client Secret/)).toBeNull();
    expect(screen.getByLabelText(/Allowed Callback URIs/)).toHaveAttribute('readonly');
    expect(screen.getByLabelText(/Back-Channel Logout URI/)).toHaveValue('https://shop.example/backchannel');
    expect(screen.getByLabelText(/Back-Channel Logout URI/)).toHaveAttribute('readonly');
    expect(screen.getByRole('checkbox', { name: 'Device Code' })).not.toBeChecked();

    await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
    const callbacks = await screen.findByLabelText(/Allowed Callback URIs/);
    expect(callbacks).not.toHaveAttribute('readonly');
    expect(screen.getByLabelText(/Client ID/)).toHaveAttribute('readonly');
    fill(callbacks, 'https://shop.example/cb\nhttps://shop.example/second');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(locations.at(-1)).toBe('/previous'));
    const [update] = writes(requests);
    expect(`${update.method} ${update.url}`).toBe(`PUT /api/application/${application.id}`);
    const body = JSON.parse(update.body!);
    expect(body.redirect_uris).toEqual(['https://shop.example/cb', 'https://shop.example/second']);
    expect(body).not.toHaveProperty('client_id');
    expect(body).not.toHaveProperty('client_secret');
  }, 60_000);
});
