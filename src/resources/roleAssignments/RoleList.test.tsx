/**
 * The Roles screen and a holder's Roles tab (docs/CONSOLE.md, "Roles"): who holds which role where,
 * Assign (role, holder, over) and Remove (confirmed), with fetch mocked at the network edge and
 * answering like server/api/roleAssignments.ts.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider } from '../../authProvider/authProvider';
import { clearSession, updateSession } from '../../session/session';
import { mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { renderPanel } from '../../test/renderPanel';
import { renderScreen } from '../../test/renderScreen';
import { permissionsOf, rolesAnswer } from '../../test/roles';
import { DeclarationContext } from '../generic/DeclarationContext';
import { users } from '../users';
import { roleAssignments } from './index';
import { HolderRoles, RoleList } from './RoleList';

const ASSIGNMENTS = '/api/companys/globex/roleAssignments';
const ada = { id: 'u1', username: 'ada', displayName: 'Ada Lovelace', email: 'ada@globex.example', status: 'active' };

let rows: Record<string, unknown>[];
/** What the next write answers instead of success. */
let refusal: { status: number; message: string } | undefined;

function provider(request: RecordedRequest) {
  const url = new URL(request.url, 'http://console');
  const { pathname } = url;
  if (pathname === '/api/roles') return rolesAnswer();
  if (refusal && request.method !== 'GET') return { status: refusal.status, json: { statusCode: refusal.status, message: refusal.message } };
  if (pathname === ASSIGNMENTS && request.method === 'GET') {
    const filter = JSON.parse(url.searchParams.get('filter') ?? '{}') as Record<string, string>;
    const shown = rows.filter((row) => Object.entries(filter).every(([field, value]) => row[field] === value));
    return { json: shown, headers: { 'Content-Range': shown.length ? `roleAssignments 0-${shown.length - 1}/${shown.length}` : 'roleAssignments */0' } };
  }
  if (pathname === ASSIGNMENTS && request.method === 'POST') {
    const body = JSON.parse(request.body!);
    const created = { id: `a${rows.length + 1}`, ...body, holderName: 'Ada Lovelace', companyId: 'globex', domainId: body.domainId ?? null, createdAt: '2026-03-05T10:00:00.000Z' };
    rows = [created, ...rows];
    return { status: 201, json: created };
  }
  if (pathname === ASSIGNMENTS && request.method === 'DELETE') {
    const ids = JSON.parse(request.body!) as string[];
    const removed = rows.filter((row) => ids.includes(String(row.id)));
    rows = rows.filter((row) => !ids.includes(String(row.id)));
    return { json: removed };
  }
  if (pathname === '/api/companys/globex/subtreeCompanys') {
    return { json: [{ id: 'initech', name: 'initech', displayName: 'Initech' }], headers: { 'Content-Range': 'subtreeCompanys 0-0/1' } };
  }
  if (pathname === '/api/companys/globex/domainNames/prod/users') return { json: [ada], headers: { 'Content-Range': 'users 0-0/1' } };
  return { status: 404, json: { message: 'not found' } };
}

const rowOf = (text: string) => screen.getAllByRole('row').find((row) => within(row).queryByText(text))!;
const writes = (requests: RecordedRequest[]) => requests.filter((request) => request.method !== 'GET');
const listReads = (requests: RecordedRequest[]) =>
  requests.filter((request) => request.method === 'GET' && new URL(request.url, 'http://x').pathname === ASSIGNMENTS).map((request) => readable(request.url));

beforeEach(() => {
  refusal = undefined;
  rows = [
    { id: 'a2', role: 'auditor', holderType: 'group', holderId: 'auditors', holderName: 'Auditors', holderCompanyId: 'globex', holderDomainId: 'prod', companyId: 'initech', domainId: 'main', createdAt: '2026-03-02T09:00:00.000Z' },
    { id: 'a1', role: 'support', holderType: 'user', holderId: 'u1', holderName: 'Ada Lovelace', holderCompanyId: 'globex', holderDomainId: 'prod', companyId: 'globex', domainId: null, createdAt: '2026-03-01T09:00:00.000Z' },
  ];
  updateSession({
    company: { id: 'globex', name: 'globex', displayName: 'Globex', type: 'reseller' },
    domain: { id: 'prod', name: 'prod' },
    accessToken: 't',
    user: { id: 'me', displayName: 'Me', email: 'me@globex.example' },
  });
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the Roles screen', () => {
  it('lists who holds which role where: the role by name, the holder, and over what', async () => {
    const { requests } = mockFetch(provider);
    renderScreen(roleAssignments, RoleList, '/roles');
    expect(await screen.findByText('Ada Lovelace')).toBeInTheDocument();
    expect(screen.getAllByRole('columnheader').map((header) => header.textContent)).toEqual(
      expect.arrayContaining(['Role', 'Holder', 'Type', 'Over', 'Given']),
    );
    await waitFor(() => expect(within(rowOf('Ada Lovelace')).getByText('Support')).toBeInTheDocument());
    expect(within(rowOf('Ada Lovelace')).getByText('User')).toBeInTheDocument();
    expect(within(rowOf('Ada Lovelace')).getByText('Globex (and below)')).toBeInTheDocument();
    // a company below, by its display name, over one of its domains
    await waitFor(() => expect(within(rowOf('Auditors')).getByText('Initech › main')).toBeInTheDocument());
    expect(within(rowOf('Auditors')).getByText('Auditor')).toBeInTheDocument();
    expect(within(rowOf('Auditors')).getByText('Group')).toBeInTheDocument();
    expect(screen.getByText(/administrators group also hold Administrator/)).toBeInTheDocument();
    expect(listReads(requests)[0]).toContain('sort=["createdAt","DESC"]');
  });

  it('assigns a role to a user of the current domain over that domain only', async () => {
    const { requests } = mockFetch(provider);
    renderScreen(roleAssignments, RoleList, '/roles', { notifications: true });
    await screen.findByText('Ada Lovelace');
    await userEvent.click(screen.getByRole('button', { name: 'Assign' }));
    const dialog = await screen.findByRole('dialog', { name: 'Assign a role' });
    const assign = within(dialog).getByRole('button', { name: 'Assign' });
    expect(assign).toBeDisabled();

    await userEvent.type(within(dialog).getByRole('combobox', { name: 'User' }), 'Ada');
    await userEvent.click(await screen.findByRole('option', { name: /Ada Lovelace/ }));
    // the roles, with what each allows, from the provider
    await userEvent.click(await within(dialog).findByRole('radio', { name: /^User manager/ }));
    expect(within(dialog).getByText(/Users, groups and their members, sessions/)).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('radio', { name: 'Only Globex › prod' }));
    expect(within(dialog).getByRole('radio', { name: 'Globex and the companies below it' })).not.toBeChecked();
    await userEvent.click(assign);

    expect(await screen.findByText('User manager given to Ada Lovelace over Globex › prod')).toBeInTheDocument();
    const [post] = writes(requests);
    expect(post.method).toBe('POST');
    expect(readable(post.url)).toBe(ASSIGNMENTS);
    expect(JSON.parse(post.body!)).toEqual({ role: 'user-manager', holderType: 'user', holderId: 'u1', holderCompanyId: 'globex', holderDomainId: 'prod', domainId: 'prod' });
    expect(readable(requests.find((request) => request.url.includes('/users?'))!.url)).toContain('"status":"active"');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await waitFor(() => expect(screen.getAllByText('Ada Lovelace')).toHaveLength(2));
  });

  it("keeps the provider's refusal in the dialog", async () => {
    mockFetch(provider);
    renderScreen(roleAssignments, RoleList, '/roles');
    await screen.findByText('Ada Lovelace');
    await userEvent.click(screen.getByRole('button', { name: 'Assign' }));
    const dialog = await screen.findByRole('dialog', { name: 'Assign a role' });
    await userEvent.click(within(dialog).getByRole('radio', { name: 'Group' }));
    expect(within(dialog).getByRole('combobox', { name: 'Group' })).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('radio', { name: 'User' }));
    await userEvent.type(within(dialog).getByRole('combobox', { name: 'User' }), 'Ada');
    await userEvent.click(await screen.findByRole('option', { name: /Ada Lovelace/ }));
    await userEvent.click(await within(dialog).findByRole('radio', { name: /^Support/ }));
    refusal = { status: 409, message: 'user u1 already holds support there' };
    await userEvent.click(within(dialog).getByRole('button', { name: 'Assign' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('user u1 already holds support there');
  });

  it('removes the selection after a confirmation; the last Owner stays, as the provider says', async () => {
    const { requests } = mockFetch(provider);
    renderScreen(roleAssignments, RoleList, '/roles', { notifications: true });
    await screen.findByText('Ada Lovelace');
    const remove = screen.getByRole('button', { name: 'Remove' });
    expect(remove).toBeDisabled();
    await userEvent.click(within(rowOf('Ada Lovelace')).getByRole('checkbox'));
    await userEvent.click(remove);
    const dialog = await screen.findByRole('dialog', { name: 'Remove 1 role assignment(s)?' });
    expect(dialog).toHaveTextContent('Their holders lose what these roles allowed at once.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText('Removed 1 role assignment(s)')).toBeInTheDocument();
    const [removal] = writes(requests);
    expect([removal.method, readable(removal.url), JSON.parse(removal.body!)]).toEqual(['DELETE', ASSIGNMENTS, ['a1']]);
    await waitFor(() => expect(screen.queryByText('Ada Lovelace')).not.toBeInTheDocument());
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    refusal = { status: 409, message: 'This is the last Owner of the provider: give the Owner role to someone else before taking it from this one' };
    await userEvent.click(within(rowOf('Auditors')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Remove' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText(/This is the last Owner of the provider/)).toBeInTheDocument();
  });

  it('an Auditor reads them, but giving and taking roles needs the Owner or Administrator role', async () => {
    mockFetch(provider, { permissions: permissionsOf('auditor') });
    renderScreen(roleAssignments, RoleList, '/roles', { authProvider });
    await screen.findByText('Ada Lovelace');
    const assign = screen.getByRole('button', { name: 'Assign' });
    await waitFor(() => expect(assign.parentElement).toHaveAttribute('tabindex', '0'));
    expect(assign).toBeDisabled();
    await userEvent.hover(assign.parentElement!);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Needs the Owner or Administrator role');
    await userEvent.click(within(rowOf('Ada Lovelace')).getByRole('checkbox'));
    expect(screen.getByRole('button', { name: 'Remove' })).toBeDisabled();
  });

  it('an Administrator gives the roles she holds: Owner is greyed out, saying who may give it', async () => {
    const { requests } = mockFetch(provider, { permissions: permissionsOf('administrator') });
    renderScreen(roleAssignments, RoleList, '/roles', { authProvider, notifications: true });
    await screen.findByText('Ada Lovelace');
    const open = screen.getByRole('button', { name: 'Assign' });
    await waitFor(() => expect(open).toBeEnabled());
    await userEvent.click(open);
    const dialog = await screen.findByRole('dialog', { name: 'Assign a role' });
    const owner = await within(dialog).findByRole('radio', { name: /^Owner/ });
    await waitFor(() => expect(owner).toBeDisabled());
    expect(owner.closest('label')).toHaveTextContent('Needs the Owner role');
    expect(within(dialog).getByRole('radio', { name: /^Support/ })).toBeEnabled();
    expect(within(dialog).getByRole('radio', { name: /^Administrator/ })).toBeEnabled();

    await userEvent.type(within(dialog).getByRole('combobox', { name: 'User' }), 'Ada');
    await userEvent.click(await screen.findByRole('option', { name: /Ada Lovelace/ }));
    await userEvent.click(within(dialog).getByRole('radio', { name: /^Support/ }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Assign' }));
    expect(await screen.findByText('Support given to Ada Lovelace over Globex (and below)')).toBeInTheDocument();
    expect(JSON.parse(writes(requests)[0].body!)).toEqual({ role: 'support', holderType: 'user', holderId: 'u1', holderCompanyId: 'globex', holderDomainId: 'prod' });
  });
});

describe("a user's Roles tab", () => {
  const renderTab = () =>
    renderPanel(
      <DeclarationContext.Provider value={users}>
        <HolderRoles declaration={users} record={ada} context={{ companyId: 'globex', domainId: 'prod' }} holderType="user" assignments={roleAssignments} />
      </DeclarationContext.Provider>,
      '/users-new',
    );

  it("lists that user's roles and assigns one to her over the company and below", async () => {
    const { requests } = mockFetch(provider);
    renderTab();
    expect(await screen.findByText('Globex (and below)')).toBeInTheDocument();
    expect(screen.queryByText('Auditors')).not.toBeInTheDocument();
    expect(screen.queryByRole('columnheader', { name: /Holder/ })).not.toBeInTheDocument();
    expect(listReads(requests)[0]).toContain('filter={"holderType":"user","holderId":"u1","holderCompanyId":"globex","holderDomainId":"prod"}');

    await userEvent.click(screen.getByRole('button', { name: 'Assign' }));
    const dialog = await screen.findByRole('dialog', { name: 'Assign a role to Ada Lovelace' });
    expect(within(dialog).queryByRole('combobox')).not.toBeInTheDocument();
    await userEvent.click(await within(dialog).findByRole('radio', { name: /^Auditor/ }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Assign' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(JSON.parse(writes(requests)[0].body!)).toEqual({ role: 'auditor', holderType: 'user', holderId: 'u1', holderCompanyId: 'globex', holderDomainId: 'prod' });
    expect(await screen.findByText('Auditor')).toBeInTheDocument();
  });
});
