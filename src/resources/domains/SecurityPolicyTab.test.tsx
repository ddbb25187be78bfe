import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider } from '../../authProvider/authProvider';
import { EVERY_PERMISSION, mockFetch } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import DomainForm from './DomainForm';
import { domains } from './index';

const company = { id: 'acme', name: 'acme', type: 'reseller' };
const domain = { id: 'people', name: 'people', description: 'Our people', primary: false };
const POLICY = { minPasswordLength: 12, refuseCommonPasswords: true, mfa: 'optional', failuresPerAccount: null, failureWindowSeconds: null, selfSignUp: false };
const open = () => renderScreen(domains, DomainForm, { pathname: domains.routes.form, state: { company, domain, mode: 'view' } }, { notifications: true, authProvider });
const policyRequests = <R extends { url: string }>(requests: R[]) => requests.filter((request) => request.url.endsWith('/securityPolicy'));

beforeEach(() => updateSession({ company, domain: { id: 'main', name: 'main', primary: true }, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe("the domain's Security tab (docs/CONSOLE.md, \"Domain security policy\")", () => {
  it('reads the policy when opened, says what is wrong in words, and saves with a notification', async () => {
    const { requests } = mockFetch((request) => ({ json: request.method === 'PUT' ? { ...POLICY, ...JSON.parse(request.body!) } : POLICY }));
    open();
    const tab = await screen.findByRole('tab', { name: 'Security' });
    // nothing is read before the tab is opened
    expect(policyRequests(requests)).toHaveLength(0);
    await userEvent.click(tab);
    const length = await screen.findByLabelText(/Minimum password length/);
    expect(length).toHaveValue('12');
    expect(`${requests.at(-1)!.method} ${requests.at(-1)!.url}`).toBe('GET /api/companys/acme/domainNames/people/securityPolicy');
    expect(screen.getByRole('radio', { name: /Optional/ })).toBeChecked();
    expect(screen.getByRole('switch', { name: 'Self sign-up' })).not.toBeChecked();

    await userEvent.clear(length);
    await userEvent.type(length, '7');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Enter a whole number from 8 to 128.')).toBeInTheDocument();
    expect(length).toHaveAttribute('aria-invalid', 'true');
    expect(policyRequests(requests).filter((request) => request.method === 'PUT')).toHaveLength(0);

    // keyboard only: the length, the second factor's choices with the arrow keys, the switch with Space
    await userEvent.clear(length);
    await userEvent.type(length, '16');
    screen.getByRole('radio', { name: /Optional/ }).focus();
    await userEvent.keyboard('{ArrowDown}');
    expect(screen.getByRole('radio', { name: /Required of everyone/ })).toBeChecked();
    screen.getByRole('switch', { name: 'Self sign-up' }).focus();
    await userEvent.keyboard(' ');
    await userEvent.type(screen.getByLabelText(/Failed sign-ins before an account is locked/), '20');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Security policy of people saved')).toBeInTheDocument();
    const put = policyRequests(requests).find((request) => request.method === 'PUT')!;
    expect(put.url).toBe('/api/companys/acme/domainNames/people/securityPolicy');
    expect(JSON.parse(put.body!)).toEqual({ ...POLICY, minPasswordLength: 16, mfa: 'required', selfSignUp: true, failuresPerAccount: 20 });
  });

  it('shows the policy with its inputs disabled to someone who may not change the domain', async () => {
    mockFetch(() => ({ json: { ...POLICY, selfSignUp: true } }), { permissions: EVERY_PERMISSION.filter((permission) => permission !== 'domains:write') });
    open();
    await userEvent.click(await screen.findByRole('tab', { name: 'Security' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Save' })).toBeDisabled());
    expect(screen.getByRole('switch', { name: 'Self sign-up' })).toBeChecked();
    expect(screen.getByRole('switch', { name: 'Self sign-up' })).toBeDisabled();
    expect(screen.getByLabelText(/Minimum password length/)).toBeDisabled();
  });

  it('a new domain has no Security tab yet', async () => {
    mockFetch();
    renderScreen(domains, DomainForm, { pathname: domains.routes.form, state: { company, mode: 'new', domainCount: 1 } });
    expect(await screen.findByLabelText(/Domain Name/)).toBeInTheDocument();
    expect(screen.queryByRole('tab', { name: 'Security' })).toBeNull();
  });
});
