/**
 * The History tab of the record screens (docs/CONSOLE.md, "History and audit log"): which company's
 * log each type reads and with which filter, the entries with who, when and from where and their
 * changes, paging, the empty, error and own-company states, and no tab on create. fetch is mocked at
 * the network edge and answers like the provider (server/api/auditEvents.ts).
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import { apis } from '../apis';
import ApiView from '../apis/ApiView';
import { applications } from '../applications';
import ApplicationView from '../applications/ApplicationView';
import { companies } from '../companies';
import CompanyForm from '../companies/CompanyForm';
import { domains } from '../domains';
import DomainForm from '../domains/DomainForm';
import { groups } from '../groups';
import GroupForm from '../groups/GroupForm';
import { users } from '../users';
import UserForm from '../users/UserForm';
import { describeValue } from './AuditDiff';
import type { AuditEvent } from './vocabulary';

const company = { id: 'acme', name: 'acme', type: 'reseller', parent: 'root' };
const domain = { id: 'main', name: 'main', primary: true };
const ada = { id: 'u1', username: 'ada', displayName: 'Ada Lovelace', email: 'ada@example.com', notes: '', status: 'active' };
const grace = { id: 'u2', username: 'grace', displayName: 'Grace Hopper', email: 'grace@example.com', notes: '', status: 'active' };
const byAda = { actorUserId: 'u1', actorCompanyId: 'acme', actorDomainId: 'main', actorClientId: 'iam-console', actorIp: '203.0.113.7' };

const event = (id: number, changes: AuditEvent['changes'], extra: Partial<AuditEvent> = {}): AuditEvent => ({
  id: String(id),
  occurredAt: `2026-03-0${(id % 9) + 1}T10:00:00.000Z`,
  domainId: 'main',
  resourceType: 'users',
  resourceId: 'u2',
  action: 'update',
  changes,
  ...byAda,
  ...extra,
});

/** The provider: a log per company (or its status), the domain's users. */
function provider(logs: Record<string, AuditEvent[] | number>) {
  return (request: RecordedRequest) => {
    const url = new URL(request.url, 'http://console');
    const log = /^\/api\/companys\/([^/]+)\/auditEvents$/.exec(url.pathname);
    if (log) {
      const rows = logs[decodeURIComponent(log[1])];
      if (rows === undefined || typeof rows === 'number') {
        const status = rows ?? 404;
        return { status, json: { statusCode: status, error: 'x', message: status === 404 ? 'company x not found' : 'Internal error' } };
      }
      const [start, end] = JSON.parse(url.searchParams.get('range') ?? '[0,24]') as [number, number];
      const page = rows.slice(start, end + 1);
      return { json: page, headers: { 'Content-Range': `auditEvents ${start}-${start + page.length - 1}/${rows.length}` } };
    }
    if (url.pathname.endsWith('/users')) {
      const ids = (JSON.parse(url.searchParams.get('filter') ?? '{}') as { id?: string[] }).id ?? [];
      const found = [ada, grace].filter((user) => ids.includes(user.id));
      return { json: found, headers: { 'Content-Range': `users 0-${found.length - 1}/${found.length}` } };
    }
    return { json: [], headers: { 'Content-Range': 'x */0' } };
  };
}

const logReads = (requests: RecordedRequest[]) =>
  requests.filter((request) => request.url.includes('/auditEvents')).map((request) => readable(request.url));

async function openHistory() {
  await userEvent.click(await screen.findByRole('tab', { name: 'History' }, { timeout: 5000 }));
}

beforeEach(() => updateSession({ company, rootCompany: company, domain, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('History tab of a user', () => {
  it("lists the user's changes newest first with who, when, from where and each field before and after", async () => {
    const { requests } = mockFetch(
      provider({
        acme: [
          event(2, { displayName: { before: 'Grace', after: 'Grace Hopper' }, password: { hidden: true } }),
          event(1, { username: { after: 'grace' }, notes: { after: '' } }, { action: 'create', actorUserId: 'boss', actorCompanyId: 'root', actorDomainId: 'default', actorClientId: 'ops-cli' }),
        ],
      }),
    );
    renderScreen(users, UserForm, { pathname: users.routes.form, state: { company, domain, user: grace, mode: 'view' } });
    expect(screen.getAllByRole('tab').map((tab) => tab.textContent)).toEqual(['General', 'History', 'Sign-ins', 'Sessions', 'Roles', 'Linked identities']);
    await openHistory();

    expect(await screen.findByRole('heading', { name: 'Updated' }, { timeout: 5000 })).toBeInTheDocument();
    expect(logReads(requests)).toEqual([
      '/api/companys/acme/auditEvents?filter={"resourceType":"users","resourceId":"u2"}&range=[0,9]&sort=["occurredAt","DESC"]',
    ]);
    const entries = screen.getAllByRole('listitem');
    expect(entries.map((entry) => within(entry).getByRole('heading').textContent)).toEqual(['Updated', 'Created']);
    // the same records in the Audit log, filtered to this user
    expect(screen.getByRole('link', { name: 'Open in the Audit log' })).toHaveAttribute(
      'href',
      `/audit-log?filter=${encodeURIComponent('{"resourceType":"users","resourceId":"u2"}')}`,
    );
    // the actor of the current domain by name (a link to them), with the address
    expect(await within(entries[0]).findByRole('link', { name: 'Ada Lovelace' }, { timeout: 5000 })).toBeInTheDocument();
    expect(within(entries[0]).getByText('from 203.0.113.7')).toBeInTheDocument();
    expect(within(entries[0]).getByRole('time')).toHaveAttribute('datetime', '2026-03-03T10:00:00.000Z');
    const rows = within(entries[0]).getAllByRole('row').map((row) => Array.from(row.children).map((cell) => cell.textContent));
    expect(rows).toEqual([
      ['Field', 'Before', 'After'],
      ['Display Name', 'Grace', 'Grace Hopper'],
      ['Password', 'changed (hidden)'],
    ]);
    // an actor from elsewhere: their id and the company and application they acted through
    expect(within(entries[1]).getByText('boss')).toBeInTheDocument();
    expect(within(entries[1]).getByText('root / ops-cli')).toBeInTheDocument();
    expect(within(entries[1]).getByRole('rowheader', { name: 'Notes' }).parentElement).toHaveTextContent('Notes—(empty)');
  });

  it('pages through the server, ten records a page', async () => {
    const many = Array.from({ length: 12 }, (_, index) => event(12 - index, { notes: { before: `n${index + 1}`, after: `n${index}` } }));
    const { requests } = mockFetch(provider({ acme: many }));
    renderScreen(users, UserForm, { pathname: users.routes.form, state: { company, domain, user: grace, mode: 'view' } });
    await openHistory();
    await waitFor(() => expect(screen.getAllByRole('listitem')).toHaveLength(10), { timeout: 5000 });
    expect(screen.getByText('1-10 of 12')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Page 2' }));
    await waitFor(() => expect(screen.getAllByRole('listitem')).toHaveLength(2), { timeout: 5000 });
    expect(logReads(requests).at(-1)).toContain('range=[10,19]');
  });

  it('says so when nothing is recorded, and when the log cannot be read', async () => {
    mockFetch(provider({ acme: [] }));
    renderScreen(users, UserForm, { pathname: users.routes.form, state: { company, domain, user: grace, mode: 'view' } });
    await openHistory();
    expect(await screen.findByText('No changes recorded yet.', {}, { timeout: 5000 })).toBeInTheDocument();

    cleanup();
    mockFetch(provider({ acme: 500 }));
    renderScreen(users, UserForm, { pathname: users.routes.form, state: { company, domain, user: grace, mode: 'view' } });
    await openHistory();
    expect(await screen.findByRole('alert', {}, { timeout: 5000 })).toHaveTextContent('The history could not be read: Internal error');
  });

  it('is not offered while the user is being created', async () => {
    const { requests } = mockFetch(provider({ acme: [] }));
    renderScreen(users, UserForm, { pathname: users.routes.form, state: { company, domain, mode: 'new' } });
    expect(await screen.findByLabelText(/Confirm Password/)).toBeInTheDocument();
    expect(screen.queryByRole('tab')).toBeNull();
    expect(logReads(requests)).toEqual([]);
  });

  it("opens the actor's own screen afresh, on its General tab", async () => {
    mockFetch(provider({ acme: [event(1, { notes: { before: 'a', after: 'b' } })] }));
    const { locations } = renderScreen(users, UserForm, { pathname: users.routes.form, state: { company, domain, user: grace, mode: 'view' } });
    await openHistory();
    await userEvent.click(await screen.findByRole('link', { name: 'Ada Lovelace' }, { timeout: 5000 }));
    await waitFor(() => expect(screen.getByLabelText(/Display Name/)).toHaveValue('Ada Lovelace'), { timeout: 5000 });
    expect(screen.getByRole('tab', { name: 'General' })).toHaveAttribute('aria-selected', 'true');
    // at the actor's shareable address
    expect(locations.at(-1)).toMatch(/^\/users\/[^/]+$/);
  });
});

describe('History tab of the other audited types', () => {
  it("a group's: members and permissions as text", async () => {
    const { requests } = mockFetch(
      provider({
        acme: [
          event(2, { member: { after: { type: 'user', id: 'u1' } } }, { resourceType: 'groups', resourceId: 'ops', action: 'addMember' }),
          event(1, { permission: { before: { apiId: 'a1', scopeId: 'read', permission: 'read:all' } } }, { resourceType: 'groups', resourceId: 'ops', action: 'removePermission' }),
        ],
      }),
    );
    const ops = { id: 'ops', name: 'ops', displayName: 'Operations', email: 'ops@example.com', status: 'active' };
    renderScreen(groups, GroupForm, { pathname: groups.routes.form, state: { company, domain, group: ops, mode: 'view' } });
    expect(screen.getAllByRole('tab').map((tab) => tab.textContent)).toEqual(['General', 'Members', 'Permissions', 'History', 'Roles']);
    await openHistory();
    expect(await screen.findByRole('heading', { name: 'Member added' }, { timeout: 5000 })).toBeInTheDocument();
    expect(logReads(requests)[0]).toContain('filter={"resourceType":"groups","resourceId":"ops"}');
    expect(screen.getByRole('rowheader', { name: 'Member' }).parentElement).toHaveTextContent('Member—User u1');
    expect(screen.getByRole('heading', { name: 'Permission taken back' })).toBeInTheDocument();
    expect(screen.getByRole('rowheader', { name: 'Permission' }).parentElement).toHaveTextContent('Permissionread:all of API a1—');
  });

  it("a domain's: the log of its company", async () => {
    const { requests } = mockFetch(provider({ acme: [event(1, { primary: { before: false, after: true } }, { resourceType: 'domains', resourceId: 'shop', action: 'setPrimary' })] }));
    renderScreen(domains, DomainForm, { pathname: domains.routes.form, state: { company, domain: { id: 'shop', name: 'shop', description: 'Shop' }, mode: 'view' } });
    await openHistory();
    expect(await screen.findByRole('heading', { name: 'Made primary' }, { timeout: 5000 })).toBeInTheDocument();
    expect(logReads(requests)[0]).toContain('/api/companys/acme/auditEvents?filter={"resourceType":"domains","resourceId":"shop"}');
    expect(screen.getByRole('rowheader', { name: 'Primary' }).parentElement).toHaveTextContent('PrimaryNoYes');
  });

  it("a child company's: its parent's log", async () => {
    const { requests } = mockFetch(provider({ acme: [event(1, { description: { before: 'old', after: 'new' } }, { resourceType: 'companies', resourceId: 'beta', domainId: null })] }));
    const beta = { id: 'beta', name: 'beta', displayName: 'Beta', description: 'new', type: 'customer', parent: 'acme' };
    renderScreen(companies, CompanyForm, { pathname: companies.routes.form, state: { company: beta, parent: company, mode: 'view' } });
    await openHistory();
    expect(await screen.findByRole('heading', { name: 'Updated' }, { timeout: 5000 })).toBeInTheDocument();
    expect(logReads(requests)[0]).toContain('/api/companys/acme/auditEvents?filter={"resourceType":"companies","resourceId":"beta"}');
  });

  it("the administrator's own company: its parent's log is out of reach, and the tab says why", async () => {
    const { requests } = mockFetch(provider({}));
    renderScreen(companies, CompanyForm, { pathname: companies.routes.form, state: { company, mode: 'view' } });
    await openHistory();
    // nor is it in the Audit log the administrator reads: no link there
    expect(screen.queryByRole('link', { name: 'Open in the Audit log' })).toBeNull();
    expect(await screen.findByText(/Changes to your own company are kept in its parent company's log/, {}, { timeout: 5000 })).toBeInTheDocument();
    expect(logReads(requests)).toEqual([]);

    // a company whose parent the provider will not show (it answers 404) says the same
    cleanup();
    mockFetch(provider({}));
    const other = { id: 'gamma', name: 'gamma', displayName: 'Gamma', description: 'g', type: 'customer', parent: 'elsewhere' };
    renderScreen(companies, CompanyForm, { pathname: companies.routes.form, state: { company: other, parent: company, mode: 'view' } });
    await openHistory();
    expect(await screen.findByText(/Changes to your own company are kept in its parent company's log/, {}, { timeout: 5000 })).toBeInTheDocument();
  });

  it("an application's and an API's: the log of the company they belong to", async () => {
    const { requests } = mockFetch(
      provider({
        acme: [event(1, { client_secret: { hidden: true } }, { resourceType: 'applications', resourceId: 'app1', action: 'rotateSecret' })],
        shop: [event(2, { scope: { after: { id: 'read', permission: 'read', description: 'Read all' } } }, { resourceType: 'apis', resourceId: 'api1', action: 'addScope' })],
      }),
    );
    const application = { id: 'app1', client_id: 'app1', client_name: 'Portal', app_type: 'web', domain: 'main', companyId: 'acme', status: 'active' };
    renderScreen(applications, ApplicationView, { pathname: applications.routes.view!, state: { company, domain, application, mode: 'view' } });
    expect(screen.getAllByRole('tab').map((tab) => tab.textContent)).toEqual(['Quick Start', 'Settings', 'History']);
    await openHistory();
    expect(await screen.findByRole('heading', { name: 'Secret rotated' }, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByRole('rowheader', { name: 'Client Secret' }).parentElement).toHaveTextContent('changed (hidden)');
    expect(logReads(requests)[0]).toContain('/api/companys/acme/auditEvents?filter={"resourceType":"applications","resourceId":"app1"}');

    cleanup();
    const api = { id: 'api1', name: 'Orders', identifier: 'https://orders', domain: 'main', companyId: 'shop', status: 'active' };
    renderScreen(apis, ApiView, { pathname: apis.routes.view!, state: { company, domain, api, mode: 'view' } });
    await openHistory();
    expect(await screen.findByRole('heading', { name: 'Scope added' }, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByRole('rowheader', { name: 'Permission scope' }).parentElement).toHaveTextContent('read: Read all');
    expect(logReads(requests).at(-1)).toContain('/api/companys/shop/auditEvents?filter={"resourceType":"apis","resourceId":"api1"}');
  });
});

describe('recorded values as text', () => {
  const translate = (key: string, options?: Record<string, unknown>) =>
    ({ 'ra.boolean.true': 'Yes', 'ra.boolean.false': 'No', 'iam.audit.emptyText': '(empty)', 'iam.audit.emptyList': '(none)' })[key] ??
    (key === 'iam.audit.permissionOf' ? `${options?.permission} of API ${options?.api}` : String(options?._ ?? key));

  it('reads lists, booleans, empty values and anything structured', () => {
    expect(describeValue('redirect_uris', ['https://a.example/cb', 'https://b.example/cb'], translate)).toBe('https://a.example/cb, https://b.example/cb');
    expect(describeValue('grant_types', [], translate)).toBe('(none)');
    expect(describeValue('RBAC', true, translate)).toBe('Yes');
    expect(describeValue('notes', '', translate)).toBe('(empty)');
    expect(describeValue('notes', null, translate)).toBe('');
    expect(describeValue('tokenExpiration', 86400, translate)).toBe('86400');
    expect(describeValue('settings', { a: 1 }, translate)).toBe('{\n  "a": 1\n}');
    // (the type's label falls back to the type here: this translate knows no member types)
    expect(describeValue('member', { type: 'group', id: 'devs' }, translate)).toBe('group devs');
    expect(describeValue('permission', { apiId: 'a1', scopeId: 's1', permission: 'read' }, translate)).toBe('read of API a1');
    expect(describeValue('scope', { id: 'w', permission: 'write', description: '' }, translate)).toBe('write');
  });
});
