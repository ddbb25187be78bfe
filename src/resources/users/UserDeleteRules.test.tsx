import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, type RecordedRequest } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import { users } from './index';
import UserList from './UserList';

const people = [
  { id: 'u1', username: 'ada', displayName: 'Ada', email: 'ada@example.com', status: 'active' },
  { id: 'u2', username: 'grace', displayName: 'Grace', email: 'grace@example.com', status: 'active' },
  { id: 'u3', username: 'linus', displayName: 'Linus', email: 'linus@example.com', status: 'active' },
];

/** Users list and the domain's administrators (GET .../administrators), as the provider answers them. */
function provider(administrators: typeof people) {
  return (request: RecordedRequest) => {
    if (request.url === '/api/companys/acme/domainNames/main/administrators') return { json: administrators };
    if (request.method === 'GET') return { json: people, headers: { 'Content-Range': 'users 0-2/3' } };
    return { json: JSON.parse(request.body ?? '[]') };
  };
}

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

beforeEach(() =>
  updateSession({
    company: { id: 'acme', name: 'acme' },
    domain: { id: 'main', name: 'main' },
    user: { id: 'u1', username: 'ada', displayName: 'Ada', email: 'ada@example.com' },
    client: { client_id: 'iam-console', companyId: 'acme', domain: 'main' },
    accessToken: 't',
  }),
);
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('users that cannot be deleted', () => {
  it('does not offer Delete when the selection holds the signed-in user, and says why', async () => {
    const { requests } = mockFetch(provider(people));
    renderScreen(users, UserList, users.routes.list);
    await screen.findByText('grace@example.com');
    const remove = screen.getByRole('button', { name: 'Delete' });
    await userEvent.click(within(rowOf('ada@example.com')).getByRole('checkbox'));
    await userEvent.click(within(rowOf('grace@example.com')).getByRole('checkbox'));
    expect(remove).toBeDisabled();
    expect(await reasonOf(remove)).toBe('You cannot delete yourself');
    await userEvent.click(within(rowOf('ada@example.com')).getByRole('checkbox'));
    expect(remove).toBeEnabled();
    expect(requests.filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('does not offer Delete on the last administrator of the domain, naming them', async () => {
    mockFetch(provider([people[1]]));
    renderScreen(users, UserList, users.routes.list);
    await screen.findByText('grace@example.com');
    const remove = screen.getByRole('button', { name: 'Delete' });
    await userEvent.click(within(rowOf('linus@example.com')).getByRole('checkbox'));
    expect(remove).toBeEnabled();
    await userEvent.click(within(rowOf('grace@example.com')).getByRole('checkbox'));
    await waitFor(() => expect(remove).toBeDisabled());
    expect(await reasonOf(remove)).toBe('Grace is the last administrator of this domain');
  });

  it('does not offer Delete when the selection holds every administrator', async () => {
    updateSession({ client: { client_id: 'iam-console', companyId: 'root', domain: 'default' } });
    mockFetch(provider([people[0], people[2]]));
    renderScreen(users, UserList, users.routes.list);
    await screen.findByText('grace@example.com');
    const remove = screen.getByRole('button', { name: 'Delete' });
    await userEvent.click(within(rowOf('ada@example.com')).getByRole('checkbox'));
    expect(remove).toBeEnabled();
    await userEvent.click(within(rowOf('linus@example.com')).getByRole('checkbox'));
    await waitFor(() => expect(remove).toBeDisabled());
    expect(await reasonOf(remove)).toBe('The selection holds every administrator of this domain: keep at least one');
  });
});
