import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AdminContext, memoryStore, Notification, TestMemoryRouter, useCreate } from 'react-admin';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDataProvider, type IamMeta } from '../dataProvider';
import { i18nProvider } from '../i18n/i18nProvider';
import { registry } from '../resources/registry';
import { clearSession, updateSession } from '../session/session';
import { mockFetch } from '../test/fetchMock';
import { CreatedNotice } from './CreatedNotice';

/** A form's create, as the screens run it: react-admin's useCreate, awaited. */
function CreateButton({ resource, data, meta }: { resource: string; data: Record<string, unknown>; meta?: IamMeta }) {
  const [create] = useCreate();
  return (
    <button type="button" onClick={() => create(resource, { data, meta }, { returnPromise: true }).catch(() => undefined)}>
      Create {resource}
    </button>
  );
}

function renderWith(button: React.ReactNode) {
  render(
    <TestMemoryRouter initialEntries={['/dashboard']}>
      <AdminContext dataProvider={createDataProvider({ resources: registry })} i18nProvider={i18nProvider} store={memoryStore()}>
        {button}
        <CreatedNotice />
        <Notification />
      </AdminContext>
    </TestMemoryRouter>,
  );
}

beforeEach(() =>
  updateSession({
    company: { id: 'globex', name: 'globex', displayName: 'Globex' },
    domain: { id: 'prod', name: 'prod', primary: true },
    accessToken: 't',
  }),
);
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

const created = (request: { body?: string }) => ({ status: 201, json: { id: 'new', ...JSON.parse(request.body ?? '{}') } });

describe('a create says where it was created', () => {
  it('a record of a domain: the current company by display name, and the domain', async () => {
    const { requests } = mockFetch(created);
    renderWith(<CreateButton resource="groups" data={{ name: 'ops', displayName: 'Ops', email: 'ops@globex.example' }} />);
    await userEvent.click(screen.getByRole('button', { name: 'Create groups' }));
    expect(await screen.findByText('Created in Globex › prod')).toBeInTheDocument();
    expect(requests[0].url).toBe('/api/companys/globex/domainNames/prod/groups');
  });

  it('a record embedded in one of a domain (an API’s permission scope): the domain too', async () => {
    mockFetch(created);
    renderWith(<CreateButton resource="permissionScopes" data={{ id: 'read', permission: 'read', description: 'Read' }} meta={{ pathContext: { parentId: 'api1' } }} />);
    await userEvent.click(screen.getByRole('button', { name: 'Create permissionScopes' }));
    expect(await screen.findByText('Created in Globex › prod')).toBeInTheDocument();
  });

  it('a company or a domain: the company it was created in', async () => {
    mockFetch(created);
    renderWith(<CreateButton resource="companies" data={{ name: 'acme', displayName: 'Acme', description: 'x', parent: 'globex' }} />);
    await userEvent.click(screen.getByRole('button', { name: 'Create companies' }));
    expect(await screen.findByText('Created in Globex')).toBeInTheDocument();
    cleanup();
    renderWith(<CreateButton resource="domains" data={{ name: 'test', description: 'x' }} />);
    await userEvent.click(screen.getByRole('button', { name: 'Create domains' }));
    expect(await screen.findByText('Created in Globex')).toBeInTheDocument();
  });

  it('the company and domain the create was sent to, when not the current ones', async () => {
    const { requests } = mockFetch(created);
    renderWith(
      <CreateButton resource="users" data={{ username: 'ada' }} meta={{ pathContext: { companyId: 'acme', domainId: 'shop' } }} />,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Create users' }));
    expect(await screen.findByText('Created in acme › shop')).toBeInTheDocument();
    expect(requests[0].url).toBe('/api/companys/acme/domainNames/shop/users');
  });

  it('says nothing of the kind when the create fails', async () => {
    const { requests } = mockFetch(() => ({ status: 409, json: { message: 'taken' } }));
    renderWith(<CreateButton resource="groups" data={{ name: 'ops' }} />);
    await userEvent.click(screen.getByRole('button', { name: 'Create groups' }));
    await waitFor(() => expect(requests).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(screen.queryByText(/^Created in/)).not.toBeInTheDocument();
  });
});
