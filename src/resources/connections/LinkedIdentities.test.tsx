/** The user screen's Linked identities tab (users/LinkedIdentities, docs/CONSOLE.md "Linked identities"). */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider } from '../../authProvider/authProvider';
import { mockFetch, type RecordedRequest, type Responder } from '../../test/fetchMock';
import { renderPanel } from '../../test/renderPanel';
import { ROLES } from '../../test/roles';
import { clearSession, updateSession } from '../../session/session';
import LinkedIdentities from '../users/LinkedIdentities';
import { users } from '../users';

const IDENTITIES = '/api/companys/acme/domainNames/main/users/u1/identities';
const identity = {
  id: 'corp:sub-123',
  connectionId: 'corp',
  connectionName: 'Corp IdP',
  protocol: 'oidc',
  subject: 'sub-123',
  email: 'ada@corp.example',
  createdAt: '2026-11-20T10:00:00.000Z',
  lastUsedAt: '2026-11-28T10:00:00.000Z',
};

function provider(onDelete: (request: RecordedRequest) => ReturnType<Responder>, permissions?: string[]) {
  let linked = [identity];
  return mockFetch(
    (request) => {
      const path = new URL(request.url, 'http://x').pathname;
      if (path === '/api/roles') return { json: { roles: ROLES, permissions: [] } };
      if (request.method === 'DELETE') {
        const answer = onDelete(request);
        if (!answer.status || answer.status < 300) linked = [];
        return answer;
      }
      if (path === IDENTITIES) return { json: linked };
      return { status: 404, json: { message: 'not found' } };
    },
    permissions ? { permissions } : undefined,
  );
}

const mount = () =>
  renderPanel(
    <LinkedIdentities declaration={users} record={{ id: 'u1' }} context={{ companyId: 'acme', domainId: 'main' }} />,
    '/users/u1',
    authProvider,
  );

beforeEach(() => updateSession({ company: { id: 'acme', name: 'acme' }, domain: { id: 'main', name: 'main' }, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('linked identities', () => {
  it('lists connection, subject, e-mail and last use; Unlink asks first, then deletes that identity', async () => {
    const { requests } = provider(() => ({ json: identity }));
    mount();
    const row = (await screen.findByText('Corp IdP')).closest('tr')!;
    expect(row).toHaveTextContent('sub-123');
    expect(row).toHaveTextContent('ada@corp.example');
    expect(within(row).getByText(new Date(identity.lastUsedAt).toLocaleString())).toBeInTheDocument();

    const unlink = within(row).getByRole('button', { name: 'Unlink Corp IdP' });
    await waitFor(() => expect(unlink).toBeEnabled());
    await userEvent.click(unlink);
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('The account sub-123 at Corp IdP no longer signs in as this user');
    expect(requests.filter((request) => request.method === 'DELETE')).toHaveLength(0);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Unlink' }));
    expect(await screen.findByText('Corp IdP unlinked')).toBeInTheDocument();
    const [removal] = requests.filter((request) => request.method === 'DELETE');
    // the id as the provider gave it, encoded as one path segment
    expect(new URL(removal.url, 'http://x').pathname).toBe(`${IDENTITIES}/corp%3Asub-123`);
    expect(await screen.findByText('No linked identity: this user signs in with a password only.')).toBeInTheDocument();
  });

  it("shows the provider's refusal (a higher-ranked account) as a notification and keeps the row", async () => {
    provider(() => ({ status: 403, json: { statusCode: 403, error: 'Forbidden', message: 'you may not act on a higher-ranked account' } }));
    mount();
    await userEvent.click(await screen.findByRole('button', { name: 'Unlink Corp IdP' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Unlink' }));
    expect(await screen.findByText('The provider refused: you may not act on a higher-ranked account')).toBeInTheDocument();
    expect(screen.getByText('Corp IdP')).toBeInTheDocument();
  });

  it('greys Unlink out, saying which roles would allow it, for a role without users:write', async () => {
    const { requests } = provider(() => ({ json: identity }), ['users:read', 'connections:read']);
    mount();
    const unlink = await screen.findByRole('button', { name: 'Unlink Corp IdP' });
    await waitFor(() => expect(unlink.parentElement).toHaveAccessibleDescription('Needs the Owner, Administrator or User manager role'));
    expect(unlink).toBeDisabled();
    expect(requests.filter((request) => request.method === 'DELETE')).toHaveLength(0);
  });
});
