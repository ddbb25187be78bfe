import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, getSession, updateSession } from '../../session/session';
import DomainForm from './DomainForm';
import { domains } from './index';

const company = { id: 'acme', name: 'acme', type: 'reseller' };
const open = (state?: object) => renderScreen(domains, DomainForm, { pathname: domains.routes.form, state });

beforeEach(() => updateSession({ company, domain: { id: 'main', name: 'main', primary: true }, accessToken: 't' }));
afterEach(() => {
  // Unmount first: a mounted list would refetch once the session is cleared.
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('domain form', () => {
  it('requires domain name and description', async () => {
    const { requests } = mockFetch();
    open({ company, mode: 'new', domainCount: 1 });
    expect(await screen.findByLabelText(/Domain Name/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findAllByText('Required')).toHaveLength(2);
    expect(requests).toHaveLength(0);
  });

  it('creates the domain under the company of the navigation state and goes back', async () => {
    const { requests } = mockFetch((request) => ({ json: JSON.parse(request.body!) }));
    const { locations } = open({ company: { id: 'child', name: 'child' }, mode: 'new', domainCount: 0 });
    await userEvent.type(await screen.findByLabelText(/Domain Name/), 'child.example');
    await userEvent.type(screen.getByLabelText(/Description/), 'First domain');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(locations.at(-1)).toBe('/previous'));
    expect(`${requests[0].method} ${requests[0].url}`).toBe('POST /api/companys/child/domainNames');
    expect(JSON.parse(requests[0].body!)).toEqual({ name: 'child.example', description: 'First domain', id: 'child.example' });
  });

  it('makes the first domain of the current company the current domain', async () => {
    updateSession({ domain: undefined });
    mockFetch((request) => ({ json: { ...JSON.parse(request.body!), primary: true } }));
    open({ company, mode: 'new', domainCount: 0 });
    await userEvent.type(await screen.findByLabelText(/Domain Name/), 'acme.example');
    await userEvent.type(screen.getByLabelText(/Description/), 'First');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(getSession().domain?.id).toBe('acme.example'));
  });

  it('views a domain read-only, and saves it with PUT after Edit', async () => {
    const { requests } = mockFetch((request) => ({ json: JSON.parse(request.body!) }));
    const domain = { id: 'other', name: 'other', description: 'Old', primary: false };
    open({ company, domain, mode: 'view' });
    expect(await screen.findByLabelText(/Description/)).toHaveAttribute('readonly');
    await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
    const description = await screen.findByLabelText(/Description/);
    await userEvent.clear(description);
    await userEvent.type(description, 'New');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(requests).toHaveLength(1));
    expect(`${requests[0].method} ${requests[0].url}`).toBe('PUT /api/companys/acme/domainNames/other');
    expect(JSON.parse(requests[0].body!)).toEqual({ ...domain, description: 'New' });
  });

  it('shows the duplicate message on 409', async () => {
    mockFetch(() => ({ status: 409, json: { statusCode: 409, error: 'Conflict', message: 'duplicated error: main already exist!' } }));
    open({ company, mode: 'new', domainCount: 1 });
    await userEvent.type(await screen.findByLabelText(/Domain Name/), 'main');
    await userEvent.type(screen.getByLabelText(/Description/), 'Again');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('duplicated error: main already exist!');
  });
});
