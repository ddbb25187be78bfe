import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, type RecordedRequest } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import GroupList from './GroupList';
import { groups } from './index';

const rows = [
  { id: 'administrators', name: 'administrators', displayName: 'Administrators', email: 'admins@example.com', status: 'active' },
  { id: 'ops', name: 'ops', displayName: 'Operations', email: 'ops@example.com', status: 'active' },
];

const provider = (request: RecordedRequest) =>
  request.method === 'GET' ? { json: rows, headers: { 'Content-Range': 'groups 0-1/2' } } : { json: [] };
const rowOf = (name: string) => screen.getAllByRole('row').find((row) => within(row).queryByText(name))!;

async function reasonOf(button: HTMLElement): Promise<string> {
  const wrapper = button.parentElement!;
  expect(wrapper).toHaveAttribute('tabindex', '0');
  await userEvent.hover(wrapper);
  const text = (await screen.findByRole('tooltip')).textContent ?? '';
  await userEvent.unhover(wrapper);
  await waitFor(() => expect(screen.queryByRole('tooltip')).not.toBeInTheDocument());
  return text;
}

beforeEach(() => updateSession({ company: { id: 'acme', name: 'acme' }, domain: { id: 'main', name: 'main' }, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the administrators group', () => {
  it('cannot be deleted: Delete is disabled while it is selected, saying why', async () => {
    const { requests } = mockFetch(provider);
    renderScreen(groups, GroupList, groups.routes.list);
    await screen.findByText('ops@example.com');
    const remove = screen.getByRole('button', { name: 'Delete' });
    await userEvent.click(within(rowOf('ops@example.com')).getByRole('checkbox'));
    expect(remove).toBeEnabled();
    await userEvent.click(within(rowOf('admins@example.com')).getByRole('checkbox'));
    expect(remove).toBeDisabled();
    expect(await reasonOf(remove)).toBe('The administrators group cannot be deleted: its members administer this domain');
    expect(requests.filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('cannot be purged either', async () => {
    mockFetch(provider);
    renderScreen(groups, GroupList, groups.routes.deleted!);
    await screen.findByText('ops@example.com');
    await userEvent.click(within(rowOf('admins@example.com')).getByRole('checkbox'));
    const purge = screen.getByRole('button', { name: 'Purge' });
    expect(purge).toBeDisabled();
    expect(await reasonOf(purge)).toBe('The administrators group cannot be deleted: its members administer this domain');
  });
});
