import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import bcrypt from 'bcryptjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import { users } from './index';
import UserForm from './UserForm';

const company = { id: 'acme', name: 'acme', type: 'customer' };
const domain = { id: 'main', name: 'main', primary: true };
const ada = { id: 'u1', username: 'ada', displayName: 'Ada', notes: 'first', email: 'ada@example.com', status: 'active' };
const USERS_URL = '/api/companys/acme/domainNames/main/users';

/** What the form sent, beside what its screen read (the Account panel's state). */
const writes = (requests: { method: string; url: string; body?: string }[]) => requests.filter((request) => request.method !== 'GET');

const open = (state?: object) => renderScreen(users, UserForm, { pathname: users.routes.form, state });

async function fillNewUser(password: string, confirmPassword: string) {
  await userEvent.type(await screen.findByLabelText(/User Name/), 'grace');
  await userEvent.type(screen.getByLabelText(/Display Name/), 'Grace');
  await userEvent.type(screen.getByLabelText(/Notes/), 'admiral');
  await userEvent.type(screen.getByLabelText(/Email/), 'grace@example.com');
  await userEvent.type(screen.getByLabelText(/^Password/), password);
  await userEvent.type(screen.getByLabelText(/Confirm Password/), confirmPassword);
}

beforeEach(() => updateSession({ company, domain, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('user form', () => {
  it('requires user name, display name, email, password and confirm password; notes is optional', async () => {
    const { requests } = mockFetch();
    open({ company, domain, mode: 'new' });
    await userEvent.click(await screen.findByRole('button', { name: 'Create' }));
    expect(await screen.findAllByText('Required')).toHaveLength(5);
    expect(screen.getByLabelText(/Notes/)).not.toBeRequired();
    expect(writes(requests)).toHaveLength(0);
  });

  it("shows 'Password mismatch!' and sends nothing when the passwords differ", async () => {
    const { requests } = mockFetch();
    open({ company, domain, mode: 'new' });
    await fillNewUser('correct horse', 'battery staple');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('Password mismatch!')).toBeInTheDocument();
    expect(writes(requests)).toHaveLength(0);
  });

  it("refuses a password the domain's policy refuses, in words under the field, sending nothing (docs/CONSOLE.md, \"Domain security policy\")", async () => {
    const policy = { minPasswordLength: 14, refuseCommonPasswords: true, mfa: 'optional', failuresPerAccount: null, failureWindowSeconds: null, selfSignUp: false };
    const { requests } = mockFetch((request) => ({ json: request.url.endsWith('/securityPolicy') ? policy : {} }));
    open({ company, domain, mode: 'new' });
    await fillNewUser('correct horse', 'correct horse');
    const password = screen.getByLabelText(/^Password/);
    await waitFor(() => expect(password).toHaveAccessibleDescription('At least 14 characters'));
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(password).toHaveAccessibleDescription('Use at least 14 characters.'));
    // a common password, whatever its case (the list loads on first use)
    for (const field of [password, screen.getByLabelText(/Confirm Password/)]) {
      await userEvent.clear(field);
      await userEvent.type(field, 'MailCreated5240');
    }
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(password).toHaveAccessibleDescription('This password is among the most common ones: choose another.'));
    expect(requests.map((request) => `${request.method} ${request.url}`)).toEqual(['GET /api/companys/acme/domainNames/main/securityPolicy']);
  });

  it('hashes the password with bcrypt cost 10 and sends it as authVerification, never password or confirmPassword', async () => {
    const { requests } = mockFetch((request) => ({ status: 201, json: { ...JSON.parse(request.body!), id: 'u2' } }));
    const { locations } = open({ company, domain, mode: 'new' });
    await fillNewUser('correct horse', 'correct horse');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    // bcrypt at cost 10 runs in the test's single thread: allow it time on a busy machine
    await waitFor(() => expect(locations.at(-1)).toBe('/previous'), { timeout: 15_000 });

    const [sent] = writes(requests);
    expect(`${sent.method} ${sent.url}`).toBe(`POST ${USERS_URL}`);
    const body = JSON.parse(sent.body!);
    expect(Object.keys(body).sort()).toEqual(['authVerification', 'displayName', 'email', 'notes', 'username']);
    expect(body).toMatchObject({ username: 'grace', displayName: 'Grace', notes: 'admiral', email: 'grace@example.com' });
    expect(body.authVerification).toMatch(/^\$2[aby]\$10\$/);
    expect(await bcrypt.compare('correct horse', body.authVerification)).toBe(true);
    expect(sent.body).not.toContain('correct horse');
  });

  it('invites instead of setting a password: creates the user without one, then sends her invitation (docs/CONSOLE.md, "E-mail, reset links and invitations")', async () => {
    const { requests } = mockFetch((request) =>
      request.url.endsWith('/sendInvitation')
        ? { json: { messageId: 'm1', recipient: 'grace@example.com', mailConfigured: false } }
        : { status: 201, json: { ...JSON.parse(request.body!), id: 'u2' } },
    );
    const { locations } = open({ company, domain, mode: 'new' });
    await userEvent.type(await screen.findByLabelText(/User Name/), 'grace');
    await userEvent.type(screen.getByLabelText(/Display Name/), 'Grace');
    await userEvent.type(screen.getByLabelText(/Email/), 'grace@example.com');
    await userEvent.click(screen.getByLabelText('Invite by e-mail instead of setting a password'));
    expect(screen.queryByLabelText(/^Password/)).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(locations.at(-1)).toBe('/previous'));
    const [made, invited] = writes(requests);
    expect(`${made.method} ${made.url}`).toBe(`POST ${USERS_URL}`);
    expect(Object.keys(JSON.parse(made.body!)).sort()).toEqual(['displayName', 'email', 'username']);
    expect(`${invited.method} ${invited.url}`).toBe(`POST ${USERS_URL}/u2/sendInvitation`);
  });

  it("shows 'duplicated error: {username} already exist!' on 409 and stays", async () => {
    mockFetch(() => ({ status: 409, json: { statusCode: 409, error: 'Conflict', message: 'duplicated error: grace already exist!' } }));
    const { locations } = open({ company, domain, mode: 'new' });
    await fillNewUser('pw-123456-abc', 'pw-123456-abc');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('duplicated error: grace already exist!');
    expect(locations.at(-1)).toBe(users.routes.form);
  });

  it('shows a provider 400 naming a field under that field as a sentence, never the JSON path', async () => {
    mockFetch(() => ({ status: 400, json: { statusCode: 400, error: 'Bad Request', message: 'body/email must match format "idn-email"' } }));
    open({ company, domain, mode: 'new' });
    await fillNewUser('pw-123456-abc', 'pw-123456-abc');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    const email = screen.getByLabelText(/Email/);
    await waitFor(() => expect(email).toHaveAccessibleDescription('Enter a valid email address, such as name@example.com'), { timeout: 15_000 });
    expect(email).toHaveAttribute('aria-invalid', 'true');
    expect(screen.queryByText(/body\/email|idn-email/)).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  }, 30_000);

  it('shows an error that names no field above the form, after a sentence saying the provider refused', async () => {
    mockFetch(() => ({ status: 403, json: { statusCode: 403, error: 'Forbidden', message: 'This call needs the user:admin scope' } }));
    open({ company, domain, mode: 'new' });
    await fillNewUser('pw-123456-abc', 'pw-123456-abc');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    const alert = await screen.findByRole('alert', {}, { timeout: 15_000 });
    expect(alert).toHaveTextContent('The provider refused the change:This call needs the user:admin scope');
    expect(alert.className).toMatch(/Error/);
  }, 30_000);

  it('refuses a malformed email in the browser with a sentence under the field, sending nothing', async () => {
    const { requests } = mockFetch();
    open({ company, domain, mode: 'new' });
    await fillNewUser('pw-123456-abc', 'pw-123456-abc');
    const email = screen.getByLabelText(/Email/);
    for (const bad of ['grace@', 'grace@example', 'gr ace@example.com', 'grace..hopper@example.com']) {
      await userEvent.clear(email);
      await userEvent.type(email, bad);
      await userEvent.click(screen.getByRole('button', { name: 'Create' }));
      await waitFor(() => expect(email).toHaveAccessibleDescription('Enter a valid email address, such as name@example.com'));
    }
    expect(writes(requests)).toHaveLength(0);
  });

  it('checks lengths and blank text in the browser like the provider', async () => {
    const { requests } = mockFetch();
    open({ company, domain, mode: 'new' });
    await fillNewUser('pw-123456-abc', 'pw-123456-abc');
    const displayName = screen.getByLabelText(/Display Name/);
    await userEvent.clear(displayName);
    await userEvent.type(displayName, '   ');
    const notes = screen.getByLabelText(/Notes/);
    fireEvent.change(notes, { target: { value: 'n'.repeat(2001) } });
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(displayName).toHaveAccessibleDescription('Required'));
    expect(notes).toHaveAccessibleDescription('Use at most 2000 characters');
    expect(writes(requests)).toHaveLength(0);
  });

  it('view mode is read-only without password fields; Edit then Save sends the record without a password', async () => {
    const { requests } = mockFetch((request) => ({ json: request.body ? JSON.parse(request.body) : {} }));
    const { locations } = open({ company, domain, user: ada, mode: 'view', header: 'User' });
    const displayName = await screen.findByLabelText(/Display Name/);
    expect(displayName).toHaveValue('Ada');
    expect(displayName).toHaveAttribute('readonly');
    expect(screen.queryByLabelText(/Password/)).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
    const editable = await screen.findByLabelText(/Display Name/);
    expect(screen.queryByLabelText(/Password/)).not.toBeInTheDocument();
    await userEvent.clear(editable);
    await userEvent.type(editable, 'Ada L.');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(locations.at(-1)).toBe('/previous'));
    expect(`${writes(requests)[0].method} ${writes(requests)[0].url}`).toBe(`PUT ${USERS_URL}/u1`);
    expect(JSON.parse(writes(requests)[0].body!)).toEqual({ ...ada, displayName: 'Ada L.' });
  });

  // The provider accepts RFC 6531 addresses (server/api/schemas.ts isEmailAddress); the form checks
  // them with the same rule (generic/emailAddress.ts; react-admin's email() would refuse these), so
  // they pass the browser's check and are sent unchanged.
  it('sends internationalized email addresses as typed', async () => {
    for (const email of ['用户@例子.广告', 'josé@exämple.com', 'user@xn--bcher-kva.example']) {
      const { requests } = mockFetch((request) => ({ json: request.body ? JSON.parse(request.body) : {} }));
      const { locations } = open({ company, domain, user: ada, mode: 'edit' });
      const input = await screen.findByLabelText(/Email/);
      await userEvent.clear(input);
      await userEvent.type(input, email);
      await userEvent.click(screen.getByRole('button', { name: 'Save' }));
      await waitFor(() => expect(locations.at(-1)).toBe('/previous'));
      expect(JSON.parse(writes(requests)[0].body!).email).toBe(email);
      cleanup();
    }
  });

  it('uses the company and domain of the navigation state for the provider path', async () => {
    const { requests } = mockFetch((request) => ({ json: request.body ? JSON.parse(request.body) : {} }));
    open({ company: { id: 'beta', name: 'beta' }, domain: { id: 'b.example', name: 'b.example' }, user: ada, mode: 'edit' });
    await userEvent.click(await screen.findByRole('button', { name: 'Save' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(writes(requests)[0].url).toBe('/api/companys/beta/domainNames/b.example/users/u1');
    // the Account panel reads the same user's state there
    expect(requests.map((request) => request.url)).toContain('/api/companys/beta/domainNames/b.example/users/u1/signInState');
  });

  it('Close in view mode and Cancel in new mode go back without a call', async () => {
    const { requests } = mockFetch();
    const { locations } = open({ company, domain, user: ada, mode: 'view' });
    await userEvent.click(await screen.findByRole('button', { name: 'Close' }));
    await waitFor(() => expect(locations.at(-1)).toBe('/previous'));
    cleanup();
    const second = open({ mode: 'new' });
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(second.locations.at(-1)).toBe('/previous'));
    // (the view's Account panel reads the user's state)
    expect(writes(requests)).toHaveLength(0);
  });

  it('opened directly (no state, or view without a user) it is a new user form', async () => {
    mockFetch();
    open(undefined);
    expect(await screen.findByRole('heading', { name: 'New user' })).toBeInTheDocument();
    expect(screen.getByLabelText(/Confirm Password/)).toBeInTheDocument();
    cleanup();
    open({ mode: 'view' });
    expect(await screen.findByRole('heading', { name: 'New user' })).toBeInTheDocument();
  });
});
