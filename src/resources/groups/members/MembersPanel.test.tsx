import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, type RecordedRequest } from '../../../test/fetchMock';
import { renderScreen } from '../../../test/renderScreen';
import { clearSession, updateSession } from '../../../session/session';
import GroupForm from '../GroupForm';
import { groups } from '../index';

const company = { id: 'acme', name: 'acme' };
const domain = { id: 'main', name: 'main' };
const administratorsGroup = { id: 'administrators', name: 'administrators', displayName: 'Administrators', email: 'a@example.com', status: 'active' };
const BASE = '/api/companys/acme/domainNames/main';

/** The administrators group holds Ada (an administrator), Bob (a deleted user) and maybe a nested group. */
function provider(members: { id: string; displayName: string; type: string }[], administrators = [{ id: 'u1', username: 'ada', displayName: 'Ada', email: 'ada@example.com' }]) {
  return (request: RecordedRequest) => {
    const url = new URL(request.url, 'http://x');
    if (url.pathname === `${BASE}/administrators`) return { json: administrators };
    if (request.method === 'GET' && url.pathname.endsWith('/members')) {
      return { json: members, headers: { 'Content-Range': `members 0-${members.length - 1}/${members.length}` } };
    }
    return { json: [] };
  };
}

async function openMembers(group: object) {
  const rendered = renderScreen(groups, GroupForm, { pathname: groups.routes.form, state: { company, domain, group, mode: 'view' } });
  await userEvent.click(await screen.findByRole('tab', { name: 'Members' }));
  return rendered;
}

const rowOf = (name: string) => screen.getAllByRole('row').find((row) => within(row).queryByText(name))!;

beforeEach(() => updateSession({ company, domain, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('group Members tab', () => {
  it('names the group and leads back to the groups list', async () => {
    mockFetch(provider([{ id: 'u1', displayName: 'Ada', type: 'user' }]));
    const { locations } = await openMembers({ id: 'ops', name: 'ops', displayName: 'Operations', email: 'o@example.com' });
    expect(await screen.findByRole('heading', { name: 'Members of Operations' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Back to groups' }));
    await waitFor(() => expect(locations.at(-1)).toBe(groups.routes.list));
  });

  it('does not offer removing the last administrator from administrators, naming them', async () => {
    const { requests } = mockFetch(
      provider([
        { id: 'u1', displayName: 'Ada', type: 'user' },
        { id: 'u2', displayName: 'Bob', type: 'user' },
      ]),
    );
    await openMembers(administratorsGroup);
    await screen.findByText('Bob');
    const remove = screen.getByRole('button', { name: 'Delete' });
    await userEvent.click(within(rowOf('Bob')).getByRole('checkbox'));
    expect(remove).toBeEnabled();
    await userEvent.click(within(rowOf('Ada')).getByRole('checkbox'));
    await waitFor(() => expect(remove).toBeDisabled());
    await userEvent.hover(remove.parentElement!);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Ada is the last administrator of this domain');
    expect(requests.filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('leaves it to the provider when a nested group stays in administrators', async () => {
    mockFetch(
      provider([
        { id: 'u1', displayName: 'Ada', type: 'user' },
        { id: 'ops', displayName: 'Operations', type: 'group' },
      ]),
    );
    await openMembers(administratorsGroup);
    await screen.findByText('Operations');
    await userEvent.click(within(rowOf('Ada')).getByRole('checkbox'));
    // Ada may also be an administrator through Operations: only the provider knows.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(screen.getByRole('button', { name: 'Delete' })).toBeEnabled();
  });

  it("a refused removal's message goes once a later Add succeeds", async () => {
    mockFetch((request) => {
      const url = new URL(request.url, 'http://x');
      if (request.method === 'DELETE') return { status: 409, json: { statusCode: 409, error: 'Conflict', message: 'domain main would have no active administrator left' } };
      if (url.pathname.endsWith('/candidates')) return { json: [{ id: 'u3', displayName: 'Grace', type: 'user' }], headers: { 'Content-Range': 'candidates 0-0/1' } };
      if (request.method === 'POST') return { json: [{ id: 'u3', displayName: 'Grace', type: 'user' }] };
      return provider([
        { id: 'u1', displayName: 'Ada', type: 'user' },
        { id: 'ops', displayName: 'Operations', type: 'group' },
      ])(request);
    });
    await openMembers(administratorsGroup);
    await screen.findByText('Operations');
    await userEvent.click(within(rowOf('Ada')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('would have no active administrator left');

    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(await within(dialog).findByRole('checkbox', { name: 'Select Grace' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await waitFor(() => expect(screen.queryByText(/would have no active administrator left/)).not.toBeInTheDocument());
  });
});
