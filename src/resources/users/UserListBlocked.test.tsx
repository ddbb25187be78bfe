/**
 * The users list marks a blocked user after her name (docs/CONSOLE.md, "Account states"), from the
 * list records' blockedAt; the deleted list does not.
 */
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import { users } from './index';
import UserList from './UserList';

const people = [
  { id: 'u1', username: 'ada', displayName: 'Ada', email: 'ada@example.com', status: 'active', blockedAt: '2026-11-27T02:00:00.000Z' },
  { id: 'u2', username: 'grace', displayName: 'Grace', email: 'grace@example.com', status: 'active', blockedAt: null },
];

const rowOf = (name: string) => screen.getAllByRole('row').find((row) => within(row).queryByText(name))!;

beforeEach(() => updateSession({ company: { id: 'acme', name: 'acme' }, domain: { id: 'main', name: 'main' }, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('a blocked user in the users list', () => {
  it('says Blocked after her name, in the name column; others say nothing', async () => {
    mockFetch(() => ({ json: people, headers: { 'Content-Range': 'users 0-1/2' } }));
    renderScreen(users, UserList, users.routes.list);
    await screen.findByText('ada@example.com');
    const nameCell = within(rowOf('ada@example.com')).getByText('Ada').closest('td')!;
    expect(within(nameCell).getByText('Blocked')).toBeInTheDocument();
    expect(within(rowOf('grace@example.com')).queryByText('Blocked')).toBeNull();
  });

  it('the deleted list does not', async () => {
    mockFetch(() => ({ json: people.map((person) => ({ ...person, status: 'deleted' })), headers: { 'Content-Range': 'users 0-1/2' } }));
    renderScreen(users, UserList, users.routes.deleted!);
    await screen.findByText('ada@example.com');
    expect(screen.queryByText('Blocked')).toBeNull();
  });
});
