/**
 * The side bar and the dashboard follow the person's roles (docs/CONSOLE.md, "Roles"): entries of
 * resources she may not read are left out, and so are the dashboard's cards.
 */
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clearSession } from '../session/session';
import { mockFetch, type RecordedRequest } from '../test/fetchMock';
import { permissionsOf, rolesAnswer } from '../test/roles';
import { signedInAs } from '../test/session';
import App from '../App';

function provider(request: RecordedRequest) {
  if (request.url.endsWith('/api/roles')) return rolesAnswer();
  if (request.url.includes('/childCompanys')) return { json: [], headers: { 'Content-Range': 'childCompanys */0' } };
  if (request.url.includes('/domainNames')) {
    return { json: [{ id: 'default', name: 'default', description: 'Default domain', primary: true }], headers: { 'Content-Range': 'domainNames 0-0/1' } };
  }
  return { status: 404, json: { message: 'not found' } };
}

const entriesOf = async (group: string, id: string) => {
  await userEvent.click(screen.getByRole('menuitem', { name: group }));
  return within(await waitFor(() => document.getElementById(id)!)).getAllByRole('menuitem').map((item) => item.textContent);
};

async function dashboardAs(permissions: readonly string[]) {
  const { requests } = mockFetch(provider, { permissions });
  window.history.replaceState(null, '', '/dashboard');
  render(<App />);
  await screen.findByRole('heading', { name: 'Hello Ada Admin' }, { timeout: 5000 });
  // the menu once the permissions are in
  await screen.findByRole('menuitem', { name: 'Audit log' }, { timeout: 5000 });
  return requests;
}

beforeEach(() => {
  localStorage.clear();
  signedInAs();
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

describe('the menu follows the roles', () => {
  it("Support: users, groups, sign-in logs, the outbox and the audit log; no applications, APIs or roles", async () => {
    await dashboardAs(permissionsOf('support'));
    expect(screen.queryByRole('menuitem', { name: 'Enterprise Applications' })).not.toBeInTheDocument();
    expect(screen.queryByRole('menuitem', { name: 'Roles' })).not.toBeInTheDocument();
    // Sync'ing results opens the import jobs: not for Support (no users:import)
    expect(await entriesOf('Users', 'menu-users')).toEqual(['All users', 'Deleted users', 'Sign-in logs', 'Outbox', 'Password reset', 'User settings']);
    expect(await entriesOf('Groups', 'menu-groups')).toEqual(['All groups', 'Deleted groups', 'General', 'Group settings']);
    expect(await entriesOf('Onboarding', 'menu-onboarding')).toEqual(['Companies', 'Domains']);
  });

  it('Application manager: applications and APIs, none of the users or groups', async () => {
    await dashboardAs(permissionsOf('application-manager'));
    expect(await entriesOf('Enterprise Applications', 'menu-enterprise')).toEqual(['Applications', 'APIs']);
    expect(await entriesOf('Users', 'menu-users')).toEqual(['Password reset', 'User settings']);
    expect(screen.queryByRole('menuitem', { name: 'Roles' })).not.toBeInTheDocument();
  });

  it("User manager: Sync'ing results, at its place in the template, opens the import and export jobs", async () => {
    await dashboardAs([...permissionsOf('user-manager'), 'users:import', 'users:export']);
    expect(await entriesOf('Users', 'menu-users')).toEqual(['All users', 'Deleted users', 'Sign-in logs', 'Outbox', 'Password reset', 'User settings', "Sync'ing results"]);
    expect(screen.getByRole('menuitem', { name: "Sync'ing results" })).toHaveAttribute('href', '/syncing-results?page=1');
    // no entry of its own elsewhere
    expect(screen.queryByRole('menuitem', { name: 'Import and export jobs' })).not.toBeInTheDocument();
  });

  it('Auditor: Roles too', async () => {
    await dashboardAs(permissionsOf('auditor'));
    expect(screen.getByRole('menuitem', { name: 'Roles' })).toHaveAttribute('href', '/roles?page=1');
  });
});

describe('the dashboard follows the roles', () => {
  it('shows the cards of the lists she may read, and reads nothing for the others', async () => {
    const requests = await dashboardAs(['domains:read', 'audit:read']);
    expect(await screen.findByRole('region', { name: 'Domains' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Companies' })).not.toBeInTheDocument();
    expect(requests.some((request) => request.url.includes('/childCompanys'))).toBe(false);
  });
});
