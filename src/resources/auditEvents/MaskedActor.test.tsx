/**
 * An operator of a company above the reader's (docs/DECISIONS.md, "Operators above a company in its
 * audit log"): the provider names their company and domain, with actorUserId, actorClientId and
 * actorIp null. The Audit log's Actor column, a row's details and the History tab read "an operator
 * of <company>", never "unknown", and say nothing of an application or address. fetch is mocked at
 * the network edge and answers like the provider (server/api/auditEvents.ts).
 */
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, type RecordedRequest } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import { signedInAs } from '../../test/session';
import { users } from '../users';
import UserForm from '../users/UserForm';
import type { AuditEvent } from './vocabulary';

const { default: App } = await import('../../App');

const LOG = '/api/companys/acme/auditEvents';
const grace = { id: 'u2', username: 'grace', displayName: 'Grace Hopper', email: 'grace@example.com', notes: '', status: 'active' };

const byRoot: AuditEvent = {
  id: '2',
  occurredAt: '2026-03-02T10:00:00.000Z',
  domainId: 'main',
  resourceType: 'users',
  resourceId: 'u2',
  action: 'update',
  changes: { displayName: { before: 'Grace', after: 'Grace Hopper' } },
  // as the provider answers acme's administrator for a change by an administrator of root
  actorUserId: null,
  actorCompanyId: 'root',
  actorDomainId: 'default',
  actorClientId: null,
  actorIp: null,
};
const withoutActor: AuditEvent = { ...byRoot, id: '1', action: 'create', changes: { username: { after: 'grace' } }, actorCompanyId: null, actorDomainId: null };

function provider(request: RecordedRequest) {
  const url = new URL(request.url, 'http://console');
  if (url.pathname === LOG) return { json: [byRoot, withoutActor], headers: { 'Content-Range': 'auditEvents 0-1/2' } };
  return { json: [], headers: { 'Content-Range': 'x */0' } };
}

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

describe('an operator of a company above, in the Audit log', () => {
  beforeEach(() => {
    localStorage.clear();
    signedInAs('acme', 'main');
  });

  it('reads "an operator of root" in the Actor column and names the company and domain in the details', async () => {
    mockFetch(provider);
    window.history.replaceState(null, '', '/dashboard');
    render(<App />);
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Audit log' }, { timeout: 5000 }));
    const row = (await screen.findByText('Updated', {}, { timeout: 5000 })).closest('tr')!;
    // the Actor cell loads with the log's other parts
    expect(await within(row).findByText('an operator of root', {}, { timeout: 5000 })).toBeInTheDocument();
    // a record without any actor still reads "unknown"
    expect(await within(screen.getByText('Created').closest('tr')!).findByText('unknown', {}, { timeout: 5000 })).toBeInTheDocument();

    await userEvent.click(within(row).getByText('User'));
    await screen.findByRole('table', { name: 'Changes' }, { timeout: 5000 });
    expect(screen.getByText(/Made by an operator of company root, domain default, above this company/)).toBeInTheDocument();
    expect(screen.queryByText(/Made through application/)).toBeNull();
  }, 60_000);
});

describe('an operator of a company above, in the History tab', () => {
  beforeEach(() => {
    const company = { id: 'acme', name: 'acme', type: 'customer', parent: 'root' };
    updateSession({ company, rootCompany: company, domain: { id: 'main', name: 'main', primary: true }, accessToken: 't' });
  });

  it('reads "by an operator of root", with no address', async () => {
    mockFetch(provider);
    renderScreen(users, UserForm, { pathname: users.routes.form, state: { company: { id: 'acme' }, domain: { id: 'main' }, user: grace, mode: 'view' } });
    await userEvent.click(await screen.findByRole('tab', { name: 'History' }, { timeout: 5000 }));
    await screen.findByRole('heading', { name: 'Updated' }, { timeout: 5000 });
    const [entry] = screen.getAllByRole('listitem');
    await waitFor(() => expect(entry).toHaveTextContent('by an operator of root'));
    expect(within(entry).queryByText(/^from /)).toBeNull();
    expect(within(entry).queryByText('unknown')).toBeNull();
  }, 60_000);
});
