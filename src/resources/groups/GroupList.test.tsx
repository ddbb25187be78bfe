import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import GroupList from './GroupList';
import { groups } from './index';

const GROUPS_URL = '/api/companys/acme/domainNames/main/groups';
const rows = [
  { id: 'devs', name: 'devs', displayName: 'Developers', notes: '', email: 'devs@example.com', status: 'deleted' },
  { id: 'ops', name: 'ops', displayName: 'Operations', notes: '', email: 'ops@example.com', status: 'deleted' },
];

function provider(request: RecordedRequest) {
  if (request.method === 'GET') return { json: rows, headers: { 'Content-Range': 'groups 0-1/2' } };
  return { json: JSON.parse(request.body!) };
}
const open = (pathname: string) => renderScreen(groups, GroupList, pathname);
const rowOf = (name: string) => screen.getAllByRole('row').find((row) => within(row).queryByText(name))!;
const writes = (requests: RecordedRequest[]) => requests.filter((request) => request.method !== 'GET');

beforeEach(() => updateSession({ company: { id: 'acme', name: 'acme' }, domain: { id: 'main', name: 'main' }, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('groups lists', () => {
  it('the active list soft-deletes the selection after a confirmation', async () => {
    const { requests } = mockFetch(provider);
    open(groups.routes.list);
    await screen.findByText('devs@example.com');
    expect(readable(requests[0].url)).toContain('condition=status,!=,deleted');
    expect(readable(requests[0].url)).toContain('range=[0,2]');
    expect(screen.queryByRole('button', { name: 'Purge' })).not.toBeInTheDocument();
    await userEvent.click(within(rowOf('Operations')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(`${writes(requests)[0].method} ${writes(requests)[0].url}`).toBe(`PUT ${GROUPS_URL}`);
    expect(JSON.parse(writes(requests)[0].body!)).toEqual([{ id: 'ops', status: 'deleted' }]);
  });

  it('the deleted list recovers, and purges a group confirmed by its name', async () => {
    const { requests } = mockFetch(provider);
    open(groups.routes.deleted!);
    await screen.findByText('devs@example.com');
    expect(readable(requests[0].url)).toContain('condition=status,=,deleted');
    expect(screen.queryByRole('button', { name: 'New' })).not.toBeInTheDocument();
    await userEvent.click(within(rowOf('Developers')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Recover' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1));
    expect(JSON.parse(writes(requests)[0].body!)).toEqual([{ id: 'devs', status: 'active' }]);

    await userEvent.click(within(rowOf('Developers')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Purge' }));
    await userEvent.type(within(await screen.findByRole('dialog')).getByLabelText('Type devs to confirm'), 'devs{Enter}');
    await waitFor(() => expect(writes(requests)).toHaveLength(2));
    expect(`${writes(requests)[1].method} ${writes(requests)[1].url}`).toBe(`DELETE ${GROUPS_URL}`);
    expect(JSON.parse(writes(requests)[1].body!)).toEqual(['devs']);
  });
});

describe('groups list filters', () => {
  it('Add filter offers No members and Created; No members is sent as the provider names it', async () => {
    const { requests } = mockFetch(provider);
    open(groups.routes.list);
    await screen.findByText('devs@example.com', {}, { timeout: 5000 });
    await userEvent.click(screen.getByRole('button', { name: 'Add filter' }));
    const menu = await screen.findByRole('menu');
    const offered = within(menu).getAllByRole('menuitemcheckbox').map((item) => item.textContent);
    expect(offered).toEqual(expect.arrayContaining(['No members', 'Created']));
    await userEvent.click(within(menu).getByRole('menuitemcheckbox', { name: 'No members' }));
    await waitFor(() => expect(readable(requests.at(-1)!.url)).toContain('filter={"noMembers":true}'));
  });
});
