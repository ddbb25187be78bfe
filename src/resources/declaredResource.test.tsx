/**
 * A resource type added by declaration alone (docs/ADDING-A-RESOURCE.md, "Console declaration"):
 * "devices" is declared here, with no components, and added to the registry; the whole console
 * (menu, routes, generic list and form, data provider) picks it up. fetch is mocked at the network
 * edge and answers like the provider's produced routes (server/api/resource.ts).
 */
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import DevicesIcon from '@mui/icons-material/Devices';
import { EVERY_PERMISSION, mockFetch, readable, type RecordedRequest } from '../test/fetchMock';
import { clearSession } from '../session/session';
import { signedInAs } from '../test/session';
import type { ResourceDeclaration } from './types';

const devices: ResourceDeclaration = {
  name: 'devices',
  labelKey: 'resources.devices.name',
  icon: DevicesIcon,
  needsDomain: true,
  paths: {
    collection: ({ companyId, domainId }) =>
      `companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/devices`,
  },
  fields: [
    { source: 'name', kind: 'text', required: true, maxLength: 200 },
    { source: 'serial', kind: 'text', required: true, rule: 'noSpaces', maxLength: 64 },
    { source: 'kind', kind: 'select', choices: ['phone', 'laptop', 'key'], defaultValue: 'phone' },
    { source: 'seats', kind: 'number', min: 1, max: 100, defaultValue: 1 },
    { source: 'managed', kind: 'boolean', defaultValue: false },
  ],
  listColumns: ['name', 'serial', 'kind'],
  searchable: true,
  filters: [
    { source: 'kind', kind: 'select', choices: ['phone', 'laptop', 'key'] },
    { source: 'managed', kind: 'boolean' },
    { source: 'createdAt', kind: 'dateRange' },
    { source: 'owner', kind: 'reference', reference: 'users', optionText: 'displayName' },
  ],
  formFields: ['name', 'serial', 'kind', 'seats', 'managed'],
  defaultSort: { field: 'name', order: 'ASC' },
  pageSize: 15,
  pageWindow: 10,
  routes: { list: '/devices', form: '/devices-new' },
};

/** What the provider answers the Owner once the two types are declared on its side too: their permission resources' verbs. */
const DECLARED_PERMISSIONS = [...EVERY_PERMISSION, 'devices:read', 'devices:write', 'devices:purge', 'licences:read'];

/** A read-only type: licences seen on devices, filtered by device (a reference) and by whether they expired. */
const licences: ResourceDeclaration = {
  name: 'licences',
  labelKey: 'resources.licences.name',
  icon: DevicesIcon,
  readOnly: true,
  menu: { group: 'enterprise', order: 30 },
  paths: { collection: ({ companyId }) => `companys/${encodeURIComponent(companyId)}/licences` },
  fields: [
    { source: 'product', kind: 'text' },
    { source: 'device', kind: 'text' },
    { source: 'expired', kind: 'boolean' },
  ],
  listColumns: ['product', 'device'],
  filters: [
    { source: 'device', kind: 'reference', reference: 'devices', optionText: 'name' },
    { source: 'expired', kind: 'boolean' },
  ],
  formFields: ['product', 'device', 'expired'],
  defaultSort: { field: 'product', order: 'ASC' },
  pageSize: 15,
  pageWindow: 10,
  routes: { list: '/licences', form: '/licences-view' },
};

vi.mock('./registry', async (importOriginal) => {
  const original = await importOriginal<typeof import('./registry')>();
  return { registry: [...original.registry, devices, licences] };
});

const { default: App } = await import('../App');

const DEVICES = '/api/companys/acme/domainNames/main/devices';
let rows: Record<string, unknown>[];

/** The provider's produced routes for devices, and an empty users list for the reference filter. */
function provider(request: RecordedRequest) {
  const url = new URL(request.url, 'http://console');
  if (url.pathname === '/api/companys/acme/licences') {
    return { json: [{ id: 'L1', product: 'Office', device: 'SN-1', expired: false }], headers: { 'Content-Range': 'licences 0-0/1' } };
  }
  if (url.pathname.endsWith('/users')) return { json: [{ id: 'u1', displayName: 'Ada' }], headers: { 'Content-Range': 'users 0-0/1' } };
  if (!url.pathname.startsWith(DEVICES)) return { status: 404, json: { message: 'not found' } };
  if (request.method === 'GET') {
    const q = (JSON.parse(url.searchParams.get('filter') ?? '{}') as { q?: string }).q ?? '';
    const found = rows.filter((row) => String(row.name).toLowerCase().includes(q.toLowerCase()));
    return { json: found, headers: { 'Content-Range': `devices 0-${found.length - 1}/${found.length}` } };
  }
  const body = JSON.parse(request.body ?? 'null');
  if (request.method === 'POST') {
    const created = { id: body.serial, ...body };
    rows.push(created);
    return { status: 201, json: created };
  }
  if (request.method === 'PUT') return { json: body };
  if (request.method === 'DELETE') {
    rows = rows.filter((row) => !(body as string[]).includes(String(row.id)));
    return { json: body.map((id: string) => ({ id })) };
  }
  return { status: 405, json: { message: 'no' } };
}

const writes = (requests: RecordedRequest[]) => requests.filter((request) => request.method !== 'GET');
const lists = (requests: RecordedRequest[]) =>
  requests.filter((request) => request.method === 'GET' && new URL(request.url, 'http://x').pathname === DEVICES).map((request) => readable(request.url));
const rowOf = (name: string) => screen.getAllByRole('row').find((row) => within(row).queryByText(name))!;

beforeEach(() => {
  localStorage.clear();
  rows = [
    { id: 'SN-1', name: 'Phone of Ada', serial: 'SN-1', kind: 'phone', seats: 1, managed: true },
    { id: 'SN-2', name: 'Laptop of Bob', serial: 'SN-2', kind: 'laptop', seats: 2, managed: false },
  ];
  signedInAs('acme', 'main');
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

describe('a resource type declared with no components', () => {
  it('has a menu entry, a searchable and filtered list, create, view, edit, purge and CSV export', async () => {
    const { requests } = mockFetch(provider, { permissions: DECLARED_PERMISSIONS });
    window.history.replaceState(null, '', '/dashboard');
    render(<App />);

    // menu entry, labelled by the readable form of the name
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Devices' }, { timeout: 5000 }));
    expect(await screen.findByText('Phone of Ada', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(lists(requests)[0]).toContain('range=[0,14]');
    expect(lists(requests)[0]).toContain('sort=["name","ASC"]');
    // column headers from the field names
    expect(screen.getByRole('columnheader', { name: /Serial/ })).toBeInTheDocument();

    // search
    await userEvent.type(screen.getByPlaceholderText('Search'), 'laptop');
    await waitFor(() => expect(screen.queryByText('Phone of Ada')).not.toBeInTheDocument(), { timeout: 5000 });
    expect(lists(requests).at(-1)).toContain('"q":"laptop"');
    await userEvent.clear(screen.getByPlaceholderText('Search'));
    await screen.findByText('Phone of Ada', {}, { timeout: 5000 });

    // a declared select filter and a date range
    await userEvent.click(screen.getByRole('combobox', { name: 'Kind' }));
    await userEvent.click(await screen.findByRole('option', { name: 'laptop' }));
    await waitFor(() => expect(lists(requests).at(-1)).toContain('"kind":"laptop"'), { timeout: 5000 });
    await userEvent.type(screen.getByLabelText('Created At from'), '2026-01-31');
    await waitFor(() => expect(lists(requests).at(-1)).toContain('condition=createdAt,>=,2026-01-31'), { timeout: 5000 });
    expect(lists(requests).at(-1)).not.toContain('createdAt_gte');

    // CSV export of the current search, sort and filters: the provider's streamed export of the columns shown
    let csv: Blob | undefined;
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: (blob: Blob) => ((csv = blob), 'blob:csv') }));
    await userEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(csv).toBeDefined(), { timeout: 5000 });
    const exported = requests.map((request) => readable(request.url)).find((url) => url.includes('/export.csv'))!;
    expect(exported).toContain(`${DEVICES}/export.csv?`);
    expect(exported).toContain('"kind":"laptop"');
    expect(exported).toContain('condition=createdAt,>=,2026-01-31');
    expect(exported).toContain('columns=id,name,serial,kind&labels=["Id","Name","Serial","Kind"]');

    // create
    await userEvent.click(screen.getByRole('button', { name: 'New' }));
    await userEvent.type(await screen.findByRole('textbox', { name: /^Name/ }, { timeout: 5000 }), 'Key of Cy');
    await userEvent.type(screen.getByRole('textbox', { name: /^Serial/ }), 'has space');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(writes(requests)).toHaveLength(0); // the declared rule is checked before sending
    await userEvent.clear(screen.getByRole('textbox', { name: /^Serial/ }));
    await userEvent.type(screen.getByRole('textbox', { name: /^Serial/ }), 'SN-3');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(1), { timeout: 5000 });
    expect(`${writes(requests)[0].method} ${writes(requests)[0].url}`).toBe(`POST ${DEVICES}`);
    expect(JSON.parse(writes(requests)[0].body!)).toMatchObject({ name: 'Key of Cy', serial: 'SN-3', kind: 'phone', seats: 1, managed: false });

    // back on the list: view, then edit
    await userEvent.click(await screen.findByRole('button', { name: 'Laptop of Bob' }, { timeout: 5000 }));
    expect(await screen.findByRole('heading', { name: 'Devices', level: 1 }, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /^Name/ })).toHaveAttribute('readonly');
    await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
    const name = screen.getByRole('textbox', { name: /^Name/ });
    await userEvent.clear(name);
    await userEvent.type(name, 'Laptop of Bea');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(2), { timeout: 5000 });
    expect(`${writes(requests)[1].method} ${writes(requests)[1].url}`).toBe(`PUT ${DEVICES}/SN-2`);
    expect(JSON.parse(writes(requests)[1].body!)).toMatchObject({ id: 'SN-2', name: 'Laptop of Bea' });

    // bulk delete after a confirmation, in one call
    await screen.findByText('Phone of Ada', {}, { timeout: 5000 });
    await userEvent.click(within(rowOf('Phone of Ada')).getByRole('checkbox'));
    await userEvent.click(within(rowOf('Laptop of Bob')).getByRole('checkbox'));
    await userEvent.click(screen.getByRole('button', { name: 'Purge' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Purge' }));
    await waitFor(() => expect(writes(requests)).toHaveLength(3), { timeout: 5000 });
    expect(`${writes(requests)[2].method} ${writes(requests)[2].url}`).toBe(`DELETE ${DEVICES}`);
    expect(JSON.parse(writes(requests)[2].body!)).toEqual(['SN-1', 'SN-2']);
  }, 60_000);

  it('a read-only type joins a template menu group, filters by a reference and a boolean, and only views', async () => {
    const { requests } = mockFetch(provider, { permissions: DECLARED_PERMISSIONS });
    window.history.replaceState(null, '', '/dashboard');
    render(<App />);
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Enterprise Applications' }, { timeout: 5000 }));
    const entries = within(document.getElementById('menu-enterprise')!);
    expect(entries.getAllByRole('menuitem').map((item) => item.textContent)).toEqual(['Applications', 'APIs', 'Connections', 'Licences']);
    await userEvent.click(entries.getByRole('menuitem', { name: 'Licences' }));
    expect(await screen.findByText('Office', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'New' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Purge' })).not.toBeInTheDocument();
    const licenceLists = () => requests.filter((request) => request.url.includes('/licences?')).map((request) => readable(request.url));

    // the reference filter offers the devices' names and sends the chosen id
    await userEvent.click(screen.getByRole('combobox', { name: 'Device' }));
    await userEvent.click(await screen.findByRole('option', { name: 'Laptop of Bob' }, { timeout: 5000 }));
    await waitFor(() => expect(licenceLists().at(-1)).toContain('"device":"SN-2"'), { timeout: 5000 });
    // the boolean filter: Any, Yes, No
    await userEvent.click(screen.getByRole('combobox', { name: 'Expired' }));
    await userEvent.click(await screen.findByRole('option', { name: 'No' }));
    await waitFor(() => expect(licenceLists().at(-1)).toContain('"expired":false'), { timeout: 5000 });

    await userEvent.click(screen.getByRole('button', { name: 'Office' }));
    expect(await screen.findByRole('button', { name: 'Close' }, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Edit' })).not.toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /^Product/ })).toHaveAttribute('readonly');
  }, 60_000);
});
