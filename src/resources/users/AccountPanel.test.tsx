/**
 * The user screen's Account panel (docs/CONSOLE.md, "Account states"): the state in words, Unlock,
 * Block (confirmed) / Unblock, Set password (hashed here, never sent plain) and the required actions,
 * each disabled with the role that would allow it. fetch is mocked at the network edge and answers
 * like server/api/accountState.ts.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import bcrypt from 'bcryptjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider } from '../../authProvider/authProvider';
import { clearSession, updateSession } from '../../session/session';
import { mockFetch, type RecordedRequest } from '../../test/fetchMock';
import { renderPanel } from '../../test/renderPanel';
import { permissionsOf, rolesAnswer } from '../../test/roles';
import type { SignInState } from './accountState';
import AccountPanel from './AccountPanel';

const USER = '/api/companys/acme/domainNames/main/users/u1';
const ada = { id: 'u1', username: 'ada', displayName: 'Ada', email: 'ada@example.com', status: 'active' };
const context = { companyId: 'acme', domainId: 'main' };
const ACTIVE: SignInState = { failedSignIns: 0, lockedUntil: null, lockedBecause: null, blockedAt: null, requiredActions: [], emailVerified: false };
const LOCKED_UNTIL = '2026-11-27T04:40:00.000Z';
const BLOCKED_AT = '2026-11-27T02:00:00.000Z';

let state: SignInState;

function provider(request: RecordedRequest) {
  const { pathname } = new URL(request.url, 'http://console');
  if (pathname === '/api/roles') return rolesAnswer();
  if (pathname === '/api/companys/acme/domainNames/main/administrators') return { json: [{ id: 'boss', username: 'boss', displayName: 'Boss', email: 'boss@example.com' }] };
  if (request.method === 'GET' && pathname === `${USER}/signInState`) return { json: state };
  if (request.method === 'POST' && pathname === `${USER}/unlock`) state = { ...state, failedSignIns: 0, lockedUntil: null, lockedBecause: null };
  else if (request.method === 'POST' && pathname === `${USER}/block`) state = { ...state, blockedAt: BLOCKED_AT };
  else if (request.method === 'POST' && pathname === `${USER}/unblock`) state = { ...state, blockedAt: null };
  else if (request.method === 'POST' && pathname === `${USER}/password`) {
    const body = JSON.parse(request.body!) as { requireChange?: boolean };
    state = { ...state, failedSignIns: 0, lockedUntil: null, lockedBecause: null, requiredActions: body.requireChange ? ['change-password'] : [] };
  } else if (request.method === 'PUT' && pathname === `${USER}/requiredActions`) {
    state = { ...state, requiredActions: (JSON.parse(request.body!) as { requiredActions: string[] }).requiredActions };
  } else return { status: 404, json: { message: 'not found' } };
  return { json: state };
}

const writes = (requests: RecordedRequest[]) => requests.filter((request) => request.method !== 'GET');
const button = (name: string) => screen.getByRole('button', { name });
const show = (user: { id: string } & Record<string, unknown> = ada) => renderPanel(<AccountPanel user={user} context={context} />, '/users-new', authProvider);

/** The tooltip a disabled button's wrapper shows on hover (focusable once there is a reason). */
async function reasonOf(element: HTMLElement): Promise<string> {
  await waitFor(() => expect(element.parentElement).toHaveAttribute('tabindex', '0'));
  await userEvent.hover(element.parentElement!);
  const tooltip = await screen.findByRole('tooltip');
  const text = tooltip.textContent ?? '';
  await userEvent.unhover(element.parentElement!);
  await waitFor(() => expect(screen.queryByRole('tooltip')).not.toBeInTheDocument());
  return text;
}

beforeEach(() => {
  state = { ...ACTIVE };
  updateSession({ company: { id: 'acme', name: 'acme' }, domain: { id: 'main', name: 'main' }, accessToken: 't', user: { id: 'me', displayName: 'Me', email: 'me@example.com' } });
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the Account panel says the state in words', () => {
  it('active: can sign in, e-mail not verified, nothing required; no Unlock', async () => {
    mockFetch(provider);
    show();
    const panel = await screen.findByRole('region', { name: 'Account' });
    expect(await within(panel).findByText('Can sign in.')).toBeInTheDocument();
    expect(within(panel).getByText('Active')).toBeInTheDocument();
    expect(panel).toHaveTextContent('E-mail:Not verified');
    expect(panel).toHaveTextContent('At next sign-in:Nothing required');
    expect(screen.queryByRole('button', { name: 'Unlock' })).toBeNull();
    expect(button('Block')).toBeEnabled();
  });

  it('locked: until when, why, and the failed sign-ins', async () => {
    state = { ...ACTIVE, failedSignIns: 109, lockedUntil: LOCKED_UNTIL, lockedBecause: 'too many failed sign-ins', emailVerified: true, requiredActions: ['change-password', 'enrol-mfa'] };
    mockFetch(provider);
    show();
    const panel = await screen.findByRole('region', { name: 'Account' });
    expect(
      await within(panel).findByText(`Locked until ${new Date(LOCKED_UNTIL).toLocaleString()} because of too many failed sign-ins.`),
    ).toBeInTheDocument();
    // the chip says until when, in local time
    expect(within(panel).getByText(`Locked until ${new Date(LOCKED_UNTIL).toLocaleString()}`)).toBeInTheDocument();
    expect(within(panel).getByText('109 failed sign-ins counted')).toBeInTheDocument();
    expect(panel).toHaveTextContent('E-mail:Verified');
    expect(panel).toHaveTextContent('At next sign-in:Change password, Enrol a second factor');
    expect(button('Unlock')).toBeEnabled();
  });

  it('invited: no password yet says Invitation pending, not Can sign in', async () => {
    state = { ...ACTIVE, hasPassword: false };
    mockFetch(provider);
    show();
    const panel = await screen.findByRole('region', { name: 'Account' });
    expect(await within(panel).findByText('Invitation pending')).toBeInTheDocument();
    expect(within(panel).getByText(/Has no password yet: cannot sign in until she chooses one from her invitation/)).toBeInTheDocument();
    expect(within(panel).queryByText('Can sign in.')).toBeNull();
    expect(within(panel).queryByText('Active')).toBeNull();
  });

  it('with a password: Active, Can sign in', async () => {
    state = { ...ACTIVE, hasPassword: true };
    mockFetch(provider);
    show();
    const panel = await screen.findByRole('region', { name: 'Account' });
    expect(await within(panel).findByText('Can sign in.')).toBeInTheDocument();
    expect(within(panel).getByText('Active')).toBeInTheDocument();
    expect(within(panel).queryByText('Invitation pending')).toBeNull();
  });

  it('blocked: since when; Unblock instead of Block', async () => {
    state = { ...ACTIVE, blockedAt: BLOCKED_AT };
    mockFetch(provider);
    show();
    expect(await screen.findByText(`Blocked since ${new Date(BLOCKED_AT).toLocaleString()}: cannot sign in until unblocked.`)).toBeInTheDocument();
    expect(screen.getByText('Blocked')).toBeInTheDocument();
    expect(button('Unblock')).toBeEnabled();
    expect(screen.queryByRole('button', { name: 'Block' })).toBeNull();
  });

  it('deleted: says so and offers nothing', async () => {
    mockFetch(provider);
    show({ ...ada, status: 'deleted' });
    expect(await screen.findByText('Deleted: cannot sign in. Recover the user from Deleted users to change the account.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Block' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Set password' })).toBeNull();
  });
});

describe('the Account panel acts', () => {
  it('Block asks first, then posts, says so and shows the block', async () => {
    const { requests } = mockFetch(provider);
    show();
    await userEvent.click(await screen.findByRole('button', { name: 'Block' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Block Ada?');
    expect(dialog).toHaveTextContent('Ada is signed out everywhere and cannot sign in until unblocked.');
    expect(writes(requests)).toEqual([]);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Block' }));

    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(`${writes(requests)[0].method} ${writes(requests)[0].url}`).toBe(`POST ${USER}/block`);
    expect(writes(requests)[0].body).toBe('{}');
    expect(await screen.findByText('Ada is blocked and signed out everywhere')).toBeInTheDocument();
    expect(await screen.findByText(/^Blocked since/)).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    await userEvent.click(button('Unblock'));
    await waitFor(() => expect(writes(requests)).toHaveLength(2));
    expect(`${writes(requests)[1].method} ${writes(requests)[1].url}`).toBe(`POST ${USER}/unblock`);
    expect(await screen.findByText('Ada is unblocked and may sign in again')).toBeInTheDocument();
    expect(await screen.findByText('Can sign in.')).toBeInTheDocument();
  });

  it('works from the keyboard: Block is reached with Tab, the confirmation answers Enter and Escape', async () => {
    const { requests } = mockFetch(provider);
    show();
    const block = await screen.findByRole('button', { name: 'Block' });
    await waitFor(() => expect(block).toBeEnabled());
    for (let presses = 0; presses < 10 && document.activeElement !== block; presses++) await userEvent.tab();
    expect(block).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    expect(await screen.findByRole('dialog')).toHaveTextContent('Block Ada?');
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(writes(requests)).toEqual([]);
    await userEvent.click(block);
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Block' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
  });

  it('Unlock clears the lock', async () => {
    state = { ...ACTIVE, failedSignIns: 101, lockedUntil: LOCKED_UNTIL, lockedBecause: 'too many failed sign-ins' };
    const { requests } = mockFetch(provider);
    show();
    await userEvent.click(await screen.findByRole('button', { name: 'Unlock' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(`${writes(requests)[0].method} ${writes(requests)[0].url}`).toBe(`POST ${USER}/unlock`);
    expect(await screen.findByText('Ada is unlocked and may sign in again')).toBeInTheDocument();
    expect(await screen.findByText('Can sign in.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Unlock' })).toBeNull();
  });

  it('Set password checks as the user form, hashes with bcrypt and sends only the hash, with requireChange', async () => {
    const { requests } = mockFetch(provider);
    show();
    await userEvent.click(await screen.findByRole('button', { name: 'Set password' }));
    const dialog = await screen.findByRole('dialog', { name: 'Set a new password for Ada' });
    await userEvent.type(within(dialog).getByLabelText(/^Password/), 'correct horse battery');
    await userEvent.type(within(dialog).getByLabelText(/^Confirm Password/), 'correct horse');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Set password' }));
    expect(await within(dialog).findByText('Password mismatch!')).toBeInTheDocument();
    expect(writes(requests)).toEqual([]);

    await userEvent.type(within(dialog).getByLabelText(/^Confirm Password/), ' battery');
    expect(within(dialog).getByRole('checkbox', { name: 'Require a new password at next sign-in' })).toBeChecked();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Set password' }));
    // bcrypt at cost 10 runs in the test's single thread: allow it time on a busy machine
    await waitFor(() => expect(writes(requests)).toHaveLength(1), { timeout: 15_000 });
    const sent = writes(requests)[0];
    expect(`${sent.method} ${sent.url}`).toBe(`POST ${USER}/password`);
    const body = JSON.parse(sent.body!) as { authVerification: string; requireChange: boolean };
    expect(Object.keys(body).sort()).toEqual(['authVerification', 'requireChange']);
    expect(body.requireChange).toBe(true);
    expect(body.authVerification).toMatch(/^\$2[aby]\$10\$/);
    expect(bcrypt.compareSync('correct horse battery', body.authVerification)).toBe(true);
    expect(sent.body).not.toContain('correct horse');
    expect(await screen.findByText('New password set for Ada, who must choose a new one at next sign-in')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(await screen.findByText('At next sign-in:', { exact: false })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('region', { name: 'Account' })).toHaveTextContent('At next sign-in:Change password'));
  }, 30_000);

  it("Set password: the domain's rules in the browser, without a required change; a refusal shows in the dialog", async () => {
    const { requests } = mockFetch((request) =>
      request.url.endsWith('/password') ? { status: 400, json: { statusCode: 400, error: 'Bad Request', message: 'the password is too common' } } : provider(request),
    );
    show();
    await userEvent.click(await screen.findByRole('button', { name: 'Set password' }));
    const dialog = await screen.findByRole('dialog');
    // the domain's rules first, in the browser (no policy read: the defaults, 12 characters)
    await userEvent.type(within(dialog).getByLabelText(/^Password/), 'short one');
    await userEvent.type(within(dialog).getByLabelText(/^Confirm Password/), 'short one');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Set password' }));
    expect(await within(dialog).findByText('Use at least 12 characters.', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(writes(requests)).toEqual([]);
    await userEvent.type(within(dialog).getByLabelText(/^Password/), ' of the kind');
    await userEvent.type(within(dialog).getByLabelText(/^Confirm Password/), ' of the kind');
    await userEvent.click(within(dialog).getByRole('checkbox', { name: 'Require a new password at next sign-in' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Set password' }));
    expect(await within(dialog).findByText('The provider refused: the password is too common', {}, { timeout: 15_000 })).toBeInTheDocument();
    expect(JSON.parse(writes(requests)[0].body!).requireChange).toBe(false);
  }, 30_000);

  it('Required actions: ticked and saved with PUT', async () => {
    const { requests } = mockFetch(provider);
    show();
    const save = await screen.findByRole('button', { name: 'Save required actions' });
    expect(save).toBeDisabled();
    await userEvent.click(screen.getByRole('checkbox', { name: 'Verify e-mail' }));
    await userEvent.click(screen.getByRole('checkbox', { name: 'Change password' }));
    await userEvent.click(save);
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(`${writes(requests)[0].method} ${writes(requests)[0].url}`).toBe(`PUT ${USER}/requiredActions`);
    // in the provider's order
    expect(JSON.parse(writes(requests)[0].body!)).toEqual({ requiredActions: ['change-password', 'verify-email'] });
    expect(await screen.findByText('Required actions of Ada saved')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('region', { name: 'Account' })).toHaveTextContent('At next sign-in:Change password, Verify e-mail'));
    expect(button('Save required actions')).toBeDisabled();
  });

  it('a refused action says why', async () => {
    mockFetch((request) =>
      request.method === 'POST' ? { status: 400, json: { statusCode: 400, error: 'Bad Request', message: 'you cannot block yourself' } } : provider(request),
    );
    show();
    await userEvent.click(await screen.findByRole('button', { name: 'Block' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Block' }));
    expect(await screen.findByText('The provider refused: you cannot block yourself')).toBeInTheDocument();
  });
});

describe('what the roles allow', () => {
  it('an Auditor sees the state; every action is disabled, naming the roles that would allow it', async () => {
    state = { ...ACTIVE, failedSignIns: 101, lockedUntil: LOCKED_UNTIL, lockedBecause: 'too many failed sign-ins' };
    mockFetch(provider, { permissions: permissionsOf('auditor') });
    show();
    await screen.findByText(/^Locked until .* because/);
    await waitFor(() => expect(button('Block')).toBeDisabled());
    expect(await reasonOf(button('Unlock'))).toBe('Needs the Owner, Administrator, User manager or Support role');
    expect(await reasonOf(button('Block'))).toBe('Needs the Owner, Administrator, User manager or Support role');
    expect(await reasonOf(button('Set password'))).toBe('Needs the Owner, Administrator or User manager role');
    expect(await reasonOf(button('Save required actions'))).toBe('Needs the Owner, Administrator or User manager role');
    expect(screen.getByRole('checkbox', { name: 'Verify e-mail' })).toBeDisabled();
  });

  it('Support unlocks and blocks, but may not set a password', async () => {
    state = { ...ACTIVE, failedSignIns: 101, lockedUntil: LOCKED_UNTIL, lockedBecause: 'too many failed sign-ins' };
    mockFetch(provider, { permissions: permissionsOf('support') });
    show();
    await waitFor(() => expect(button('Unlock')).toBeEnabled());
    expect(button('Block')).toBeEnabled();
    expect(await reasonOf(button('Set password'))).toBe('Needs the Owner, Administrator or User manager role');
  });

  it('Support facing an Administrator: Unlock, Block and Set password disabled with the reason the provider gives', async () => {
    state = { ...ACTIVE, failedSignIns: 101, lockedUntil: LOCKED_UNTIL, lockedBecause: 'too many failed sign-ins' };
    const reason = 'You cannot act on user u1: it holds the Administrator role over company acme and the companies below it, and your roles there do not give all of it. Nobody acts on more than they hold.';
    const { requests } = mockFetch((request) => (request.url.endsWith(`${USER}/rights`) ? { json: { mayActOn: false, reason } } : provider(request)), { permissions: permissionsOf('support') });
    show();
    await screen.findByText(/^Locked until .* because/);
    await waitFor(() => expect(button('Unlock')).toBeDisabled());
    expect(await reasonOf(button('Unlock'))).toBe(reason);
    expect(await reasonOf(button('Block'))).toBe(reason);
    expect(await reasonOf(button('Set password'))).toBe('Needs the Owner, Administrator or User manager role');
    expect(writes(requests)).toEqual([]);
  });

  it("the domain's last administrator is not offered Block", async () => {
    mockFetch((request) =>
      request.url.endsWith('/domainNames/main/administrators') ? { json: [{ id: 'u1', username: 'ada', displayName: 'Ada', email: 'ada@example.com' }] } : provider(request),
    );
    show();
    await screen.findByText('Can sign in.');
    expect(await reasonOf(button('Block'))).toBe('Ada is the last administrator of this domain');
  });

  it('nobody blocks herself', async () => {
    mockFetch(provider);
    updateSession({ user: { id: 'u1', displayName: 'Ada', email: 'ada@example.com' }, client: { client_id: 'iam-console', companyId: 'acme', domain: 'main' } });
    show();
    expect(await reasonOf(await screen.findByRole('button', { name: 'Block' }))).toBe('You cannot block yourself');
  });
});
