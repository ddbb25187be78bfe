import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession, type Company } from '../../session/session';
import CompanyForm, { isTypeFieldHidden } from './CompanyForm';
import { companies } from './index';

const acme: Company = { id: 'acme', name: 'acme', displayName: 'Acme', description: 'Parent', type: 'reseller', parent: 'root' };
const beta: Company = { id: 'beta', name: 'beta', displayName: 'Beta', description: 'Child', type: 'customer', parent: 'acme' };

const open = (state?: object) =>
  renderScreen(companies, CompanyForm, { pathname: companies.routes.form, state });

beforeEach(() => {
  updateSession({ company: acme, rootCompany: acme, domain: { id: 'main', name: 'main' }, accessToken: 't' });
});
afterEach(() => {
  // Unmount first: a mounted list would refetch once the session is cleared.
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('company form', () => {
  it('requires company name, display name and description and sends nothing without them', async () => {
    const { requests } = mockFetch();
    open({ mode: 'new', parent: acme });
    await userEvent.click(await screen.findByRole('button', { name: 'Create' }));
    expect(await screen.findAllByText('Required')).toHaveLength(3);
    expect(requests).toHaveLength(0);
  });

  it('creates with id = name, the parent and type customer by default, then goes back', async () => {
    const { requests } = mockFetch((request) => ({ json: JSON.parse(request.body!) }));
    const { locations } = open({ mode: 'new', parent: acme });
    await userEvent.type(await screen.findByLabelText(/Company Name/), 'gamma');
    await userEvent.type(screen.getByLabelText(/Display Name/), 'Gamma');
    await userEvent.type(screen.getByLabelText(/Description/), 'Third');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(locations.at(-1)).toBe('/previous'));
    expect(`${requests[0].method} ${requests[0].url}`).toBe('POST /api/companys');
    expect(JSON.parse(requests[0].body!)).toEqual({
      name: 'gamma',
      displayName: 'Gamma',
      description: 'Third',
      type: 'customer',
      parent: 'acme',
      id: 'gamma',
    });
  });

  it('shows the provider\'s own sentence for a 409 that is not a duplicate (an id not available)', async () => {
    const sentence = 'company id "beta" is not available: choose another';
    mockFetch(() => ({ status: 409, json: { statusCode: 409, error: 'Conflict', message: sentence } }));
    open({ mode: 'new', parent: acme });
    await userEvent.type(await screen.findByLabelText(/Company Name/), 'beta');
    await userEvent.type(screen.getByLabelText(/Display Name/), 'Beta');
    await userEvent.type(screen.getByLabelText(/Description/), 'Again');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(sentence);
  });

  it('shows the duplicate message on 409 and stays on the form', async () => {
    mockFetch(() => ({ status: 409, json: { statusCode: 409, error: 'Conflict', message: 'duplicated error: beta already exist!' } }));
    const { locations } = open({ mode: 'new', parent: acme });
    await userEvent.type(await screen.findByLabelText(/Company Name/), 'beta');
    await userEvent.type(screen.getByLabelText(/Display Name/), 'Beta');
    await userEvent.type(screen.getByLabelText(/Description/), 'Again');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('duplicated error: beta already exist!');
    expect(locations.at(-1)).toBe(companies.routes.form);
  });

  it("shows a provider 400 naming a field under that field, in the provider's own words when they are not known", async () => {
    mockFetch(() => ({ status: 400, json: { statusCode: 400, error: 'Bad Request', message: 'body/name is too long' } }));
    open({ mode: 'new', parent: acme });
    await userEvent.type(await screen.findByLabelText(/Company Name/), 'x');
    await userEvent.type(screen.getByLabelText(/Display Name/), 'X');
    await userEvent.type(screen.getByLabelText(/Description/), 'X');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByLabelText(/Company Name/)).toHaveAccessibleDescription('The provider refused this value: is too long');
    expect(screen.queryByText(/body\/name/)).toBeNull();
  });

  it('checks the name in the browser: the id pattern and the names the provider keeps', async () => {
    const { requests } = mockFetch();
    open({ mode: 'new', parent: acme });
    const name = await screen.findByLabelText(/Company Name/);
    await userEvent.type(name, 'no spaces allowed');
    await userEvent.type(screen.getByLabelText(/Display Name/), 'X');
    await userEvent.type(screen.getByLabelText(/Description/), 'X');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(name).toHaveAccessibleDescription(/^Use up to 128 letters, digits/));
    await userEvent.clear(name);
    await userEvent.type(name, 'Docs');
    await waitFor(() => expect(name).toHaveAccessibleDescription('"Docs" is kept by the provider: choose another name'));
    expect(requests.filter((request) => request.method !== 'GET')).toHaveLength(0);
  });

  it('opens in view mode read-only with Edit and Close; Edit then Save sends the full body', async () => {
    const { requests } = mockFetch((request) => ({ json: JSON.parse(request.body!) }));
    const { locations } = open({ mode: 'view', company: beta, parent: acme });
    const description = await screen.findByLabelText(/Description/);
    expect(description).toHaveValue('Child');
    expect(description).toHaveAttribute('readonly');
    expect(screen.getByRole('button', { name: 'Close' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Save' })).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
    const editable = await screen.findByLabelText(/Description/);
    expect(editable).not.toHaveAttribute('readonly');
    // The name is the id: it cannot change after creation.
    expect(screen.getByLabelText(/Company Name/)).toHaveAttribute('readonly');
    await userEvent.clear(editable);
    await userEvent.type(editable, 'Renamed');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(locations.at(-1)).toBe('/previous'));
    expect(`${requests[0].method} ${requests[0].url}`).toBe('PUT /api/companys/beta');
    expect(JSON.parse(requests[0].body!)).toEqual({ ...beta, description: 'Renamed' });
  });

  it('Cancel goes back without saving', async () => {
    const { requests } = mockFetch();
    const { locations } = open({ mode: 'new', parent: acme });
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(locations.at(-1)).toBe('/previous'));
    expect(requests).toHaveLength(0);
  });

  it('opened without navigation state, it is a new company under the current one', async () => {
    const { requests } = mockFetch((request) => ({ json: JSON.parse(request.body!) }));
    open(undefined);
    expect(await screen.findByRole('heading', { name: 'New company' })).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText(/Company Name/), 'delta');
    await userEvent.type(screen.getByLabelText(/Display Name/), 'Delta');
    await userEvent.type(screen.getByLabelText(/Description/), 'Fourth');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(requests).toHaveLength(1));
    expect(JSON.parse(requests[0].body!).parent).toBe('acme');
  });

  it('shows a reseller\'s Type in view mode, and hides it in edit mode unless its parent is a reseller (docs/CONSOLE.md, "Company type")', async () => {
    mockFetch();
    const reseller: Company = { ...beta, type: 'reseller' };
    open({ mode: 'view', company: reseller, parent: { ...acme, type: 'root' } });
    await screen.findByLabelText(/Description/);
    // View mode says what the company is, read-only.
    expect(screen.getByLabelText(/Type/)).toHaveTextContent('reseller');
    await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
    await screen.findByRole('button', { name: 'Save' });
    expect(screen.queryByLabelText(/Type/)).not.toBeInTheDocument();

    expect(isTypeFieldHidden(reseller, { type: 'reseller' })).toBe(false);
    expect(isTypeFieldHidden(reseller, { type: 'customer' })).toBe(true);
    expect(isTypeFieldHidden(beta, { type: 'root' })).toBe(false);
    expect(isTypeFieldHidden(undefined, acme)).toBe(false);
    // the administrator's own company: its type is its parent's decision
    expect(isTypeFieldHidden(beta, { type: 'root' }, beta.id)).toBe(true);
    expect(isTypeFieldHidden(beta, { type: 'root' }, 'someone-else')).toBe(false);
  });

  it('shows Type for a customer company', async () => {
    mockFetch();
    open({ mode: 'view', company: beta, parent: acme });
    expect(await screen.findByLabelText(/Type/)).toBeInTheDocument();
  });
});
