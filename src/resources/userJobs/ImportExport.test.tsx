/**
 * The import and export screens against the provider as the contract says (docs/CONSOLE.md,
 * "Import and export"): fetch is mocked at the network edge only.
 */
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider } from '../../authProvider/authProvider';
import { clearSession } from '../../session/session';
import { EVERY_PERMISSION, mockFetch, type RecordedRequest, type Responder } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { signedInAs } from '../../test/session';
import { userJobs } from './index';
import ImportExport from './ImportExport';
import JobList from './JobList';
import JobView from './JobView';

const BASE = '/api/companys/acme/domainNames/main';
const JOBS = [...EVERY_PERMISSION, 'users:import', 'users:export'];
const ROLES = {
  roles: [
    { id: 'owner', name: 'Owner', description: '', permissions: [...JOBS, 'roles:owner'] },
    { id: 'user-manager', name: 'User manager', description: '', permissions: JOBS.filter((permission) => permission !== 'roles:owner') },
  ],
  permissions: JOBS,
};

const job = (fields: Record<string, unknown> = {}) => ({
  id: 'j1',
  kind: 'import',
  status: 'queued',
  options: { format: 'csv', dryRun: false, match: 'email', groups: false, mapping: {}, fileName: 'people.csv' },
  rowsRead: 0,
  created: 0,
  updated: 0,
  skipped: 0,
  failed: 0,
  bytes: 0,
  error: null,
  createdBy: { userId: 'u1', companyId: 'acme', domainId: 'main' },
  createdAt: '2026-11-29T08:00:00.000Z',
  startedAt: null,
  finishedAt: null,
  ...fields,
});

function provider(extra: (request: RecordedRequest, url: URL) => ReturnType<Responder> | undefined, permissions: readonly string[] = [...JOBS, 'roles:owner']) {
  return mockFetch(
    (request) => {
      const url = new URL(request.url, 'http://x');
      if (url.pathname === '/api/roles') return { json: ROLES };
      return extra(request, url) ?? { status: 404, json: { message: 'not found' } };
    },
    { permissions },
  );
}

/** What fetch was given for a request: the mock records string bodies only, a file goes as itself. */
const bodyOf = (fetchMock: ReturnType<typeof mockFetch>['fetchMock'], path: string) =>
  fetchMock.mock.calls.find(([input, init]) => String(input).startsWith(path) && init?.method === 'POST')?.[1]?.body;

beforeEach(() => {
  localStorage.clear();
  signedInAs('acme', 'main');
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const CSV = 'E-mail,Full name,user_id,given_name,password_hash\nada@example.com,Ada Lovelace,auth0|1,Ada,$2b$10$abc\nbob@example.com,Bob,auth0|2,Bob,\n';

async function chooseFile(content: string, name: string) {
  const input = document.querySelector<HTMLInputElement>('input[type=file]')!;
  await userEvent.upload(input, new File([content], name, { type: name.endsWith('.csv') ? 'text/csv' : '' }));
}

describe('Import / Export', () => {
  it('previews the first rows, guesses the mapping, lets it change, and starts a dry run with the options', async () => {
    const { requests, fetchMock } = provider((request, url) =>
      request.method === 'POST' && url.pathname === `${BASE}/importJobs` ? { status: 201, json: job({ id: 'dry1', options: { dryRun: true } }) } : undefined,
    );
    const { addresses } = renderScreen(userJobs, ImportExport, '/users-import', { authProvider });
    expect(await screen.findByRole('heading', { name: 'Import / Export', level: 1 })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Dry run' })).toBeDisabled();

    await chooseFile(CSV, 'people.csv');
    expect(await screen.findByText(`people.csv (${CSV.length} B)`)).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Columns' });
    // each column: what it is imported as, guessed, and its first rows
    const rowOf = (column: string) => within(table).getByRole('row', { name: new RegExp(`^${column.replace('|', '\\|')}`) });
    expect(within(rowOf('E-mail')).getByRole('combobox', { name: 'Column E-mail imported as' })).toHaveTextContent('E-mail');
    expect(within(rowOf('Full name')).getByRole('combobox')).toHaveTextContent('Display name');
    expect(within(rowOf('user_id')).getByRole('combobox')).toHaveTextContent('External ID');
    expect(within(rowOf('given_name')).getByRole('combobox')).toHaveTextContent('Not imported');
    expect(within(rowOf('password_hash')).getByRole('combobox')).toHaveTextContent('Password hash');
    expect(within(rowOf('E-mail')).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(expect.arrayContaining(['ada@example.com', 'bob@example.com']));
    // the format from the name, changeable
    expect(screen.getByRole('combobox', { name: 'Format of the file' })).toHaveTextContent('CSV');

    // given_name as the user name
    await userEvent.click(within(rowOf('given_name')).getByRole('combobox'));
    await userEvent.click(await screen.findByRole('option', { name: 'User name' }));
    await userEvent.click(screen.getByRole('radio', { name: 'Update the user with the same ID' }));
    await userEvent.click(screen.getByRole('switch', { name: 'Groups and memberships' }));

    await waitFor(() => expect(screen.getByRole('button', { name: 'Dry run' })).toBeEnabled());
    await userEvent.click(screen.getByRole('button', { name: 'Dry run' }));
    await waitFor(() => expect(addresses.at(-1)).toBe('/syncing-results-view?kind=import&id=dry1&company=acme&domain=main'));
    const post = requests.find((request) => request.method === 'POST')!;
    const query = new URL(post.url, 'http://x').searchParams;
    expect(Object.fromEntries(query)).toEqual({
      format: 'csv',
      dryRun: 'true',
      match: 'id',
      groups: 'true',
      mapping: JSON.stringify({ 'E-mail': 'email', 'Full name': 'displayName', user_id: 'externalId', given_name: 'username', password_hash: 'passwordHash' }),
      fileName: 'people.csv',
    });
    expect(post.headers.get('Content-Type')).toBe('text/csv');
    // the file itself is the body: the provider streams it
    const body = bodyOf(fetchMock, `${BASE}/importJobs`) as File;
    expect(body).toBeInstanceOf(File);
    expect(await body.text()).toBe(CSV);
  });

  it('asks for an E-mail column, and refuses a field chosen twice, before anything is sent', async () => {
    const { requests } = provider(() => undefined);
    renderScreen(userJobs, ImportExport, '/users-import', { authProvider });
    await chooseFile('{"mail":"ada@example.com","login":"ada"}\n', 'people.jsonl');
    expect(await screen.findByRole('combobox', { name: 'Format of the file' })).toHaveTextContent('JSON Lines');
    const mail = await screen.findByRole('combobox', { name: 'Column mail imported as' });
    expect(mail).toHaveTextContent('E-mail');
    await userEvent.click(mail);
    await userEvent.click(await screen.findByRole('option', { name: 'Not imported' }));
    expect(await screen.findByText('Choose the column imported as E-mail: every user needs one.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Import' })).toBeDisabled();

    await userEvent.click(screen.getByRole('combobox', { name: 'Column login imported as' }));
    await userEvent.click(await screen.findByRole('option', { name: 'E-mail' }));
    await userEvent.click(screen.getByRole('combobox', { name: 'Column mail imported as' }));
    await userEvent.click(await screen.findByRole('option', { name: 'E-mail' }));
    expect(await screen.findByText('E-mail is chosen for more than one column: choose it for one only.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Import' })).toBeDisabled();
    expect(requests.filter((request) => request.method === 'POST')).toEqual([]);
  });

  it("shows the provider's sentence when the import is refused, and stays", async () => {
    provider((request) => (request.method === 'POST' ? { status: 400, json: { message: 'querystring/match must be equal to one of the allowed values' } } : undefined));
    const { addresses } = renderScreen(userJobs, ImportExport, '/users-import', { authProvider });
    await chooseFile(CSV, 'people.csv');
    await screen.findByRole('table', { name: 'Columns' });
    await userEvent.click(screen.getByRole('button', { name: 'Import' }));
    expect(await screen.findByText('querystring/match must be equal to one of the allowed values')).toBeInTheDocument();
    expect(addresses.at(-1)).toBe('/users-import');
  });

  it('a malformed JSON Lines file says which line', async () => {
    provider(() => undefined);
    renderScreen(userJobs, ImportExport, '/users-import', { authProvider });
    await chooseFile('{"email":"a@b.c"}\n[1,2]\n', 'people.jsonl');
    expect(await screen.findByText('The first rows could not be read: line 2 is not a JSON object')).toBeInTheDocument();
  });

  it('exports with password hashes for an Owner', async () => {
    const { requests } = provider((request, url) =>
      request.method === 'POST' && url.pathname === `${BASE}/exportJobs` ? { status: 201, json: job({ id: 'e1', kind: 'export', options: { format: 'jsonl' } }) } : undefined,
    );
    const { addresses } = renderScreen(userJobs, ImportExport, '/users-import', { authProvider });
    const section = await screen.findByRole('region', { name: 'Export users' });
    await userEvent.click(within(section).getByRole('combobox', { name: 'Format' }));
    await userEvent.click(await screen.findByRole('option', { name: 'JSON Lines' }));
    const hashes = within(section).getByRole('switch', { name: 'Include password hashes' });
    await waitFor(() => expect(hashes).toBeEnabled());
    await userEvent.click(hashes);
    await userEvent.click(within(section).getByRole('button', { name: 'Export' }));
    await waitFor(() => expect(addresses.at(-1)).toBe('/syncing-results-view?kind=export&id=e1&company=acme&domain=main'));
    expect(JSON.parse(requests.find((request) => request.method === 'POST')!.body!)).toEqual({ format: 'jsonl', groups: true, passwordHashes: true });
  });

  it('greys password hashes for anyone but an Owner, naming the role; the export goes without them', async () => {
    const { requests } = provider(
      (request) => (request.method === 'POST' ? { status: 201, json: job({ id: 'e2', kind: 'export' }) } : undefined),
      JOBS.filter((permission) => permission !== 'roles:owner'),
    );
    renderScreen(userJobs, ImportExport, '/users-import', { authProvider });
    const section = await screen.findByRole('region', { name: 'Export users' });
    const hashes = within(section).getByRole('switch', { name: 'Include password hashes' });
    await waitFor(() => expect(hashes.closest('[aria-describedby], span[tabindex="0"]')).toBeTruthy());
    expect(hashes).toBeDisabled();
    await userEvent.hover(hashes.closest('span[tabindex="0"]')!);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Needs the Owner role');
    await userEvent.click(within(section).getByRole('button', { name: 'Export' }));
    await waitFor(() => expect(requests.some((request) => request.method === 'POST')).toBe(true));
    expect(JSON.parse(requests.find((request) => request.method === 'POST')!.body!)).toMatchObject({ passwordHashes: false });
  });

  it('greys Dry run and Import without users:import, naming the roles', async () => {
    provider(() => undefined, EVERY_PERMISSION);
    renderScreen(userJobs, ImportExport, '/users-import', { authProvider });
    await chooseFile(CSV, 'people.csv');
    await screen.findByRole('table', { name: 'Columns' });
    const dryRun = screen.getByRole('button', { name: 'Dry run' });
    await userEvent.hover(dryRun.parentElement!);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Needs the Owner or User manager role');
    expect(dryRun).toBeDisabled();
  });
});

describe("a job's screen", () => {
  it('follows the progress until done, shows the counts and downloads the error file', async () => {
    let reads = 0;
    const errors = 'row,field,message\n3,email,email must be an e-mail address\n';
    const { requests } = provider((request, url) => {
      if (url.pathname === `${BASE}/importJobs/j1/errors`) return { json: errors, headers: { 'Content-Type': 'text/csv' } };
      if (url.pathname !== `${BASE}/importJobs/j1`) return undefined;
      reads += 1;
      return reads < 2
        ? { json: job({ status: 'running', rowsRead: 1 }) }
        : { json: job({ status: 'done', rowsRead: 3, created: 2, failed: 1, finishedAt: '2026-11-29T08:01:00.000Z' }) };
    });
    const saved: Blob[] = [];
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: (blob: Blob) => (saved.push(blob), 'blob:x'), revokeObjectURL: () => undefined }));
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    renderScreen(userJobs, JobView, '/syncing-results-view?kind=import&id=j1&company=acme&domain=main', { authProvider });
    expect(await screen.findByRole('heading', { name: 'Import', level: 1 })).toBeInTheDocument();
    expect(await screen.findByText('Running')).toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'Progress' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Cancel the import' })).toBeInTheDocument();
    // asked again until done
    expect(await screen.findByText('Done, with errors', {}, { timeout: 4000 })).toBeInTheDocument();
    const counts = Object.fromEntries(
      screen.getAllByRole('term').map((term) => [term.textContent, term.nextElementSibling?.textContent]),
    );
    expect(counts).toEqual({ 'Rows read': '3', Created: '2', Updated: '0', Skipped: '0', Failed: '1' });
    expect(screen.queryByRole('button', { name: 'Cancel the import' })).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Download the error file' }));
    await waitFor(() => expect(click).toHaveBeenCalled());
    expect(await saved[0].text()).toBe(JSON.stringify(errors));
    const download = requests.find((request) => request.url.endsWith('/errors'))!;
    expect(download.headers.get('Authorization')).toBe('Bearer x.e30.y');
    // it stopped asking
    const settled = reads;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(reads).toBe(settled);
    click.mockRestore();
  });

  it('a finished dry run says nothing changed and offers Import for real, which starts the real job', async () => {
    const { requests } = provider((request, url) => {
      if (request.method === 'POST' && url.pathname === `${BASE}/importJobs/d1/import`) return { status: 201, json: job({ id: 'real1' }) };
      if (url.pathname === `${BASE}/importJobs/d1`) return { json: job({ id: 'd1', status: 'done', rowsRead: 2, created: 2, options: { format: 'csv', dryRun: true, match: 'none', groups: false } }) };
      return undefined;
    });
    const { addresses } = renderScreen(userJobs, JobView, '/syncing-results-view?kind=import&id=d1&company=acme&domain=main', { authProvider });
    expect(await screen.findByRole('heading', { name: 'Dry run', level: 1 })).toBeInTheDocument();
    expect(screen.getByText('A dry run: nothing was changed. The counts say what an import of this file would do.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Download the error file' })).not.toBeInTheDocument();
    const real = screen.getByRole('button', { name: 'Import for real' });
    await waitFor(() => expect(real).toBeEnabled());
    await userEvent.click(real);
    await waitFor(() => expect(addresses.at(-1)).toBe('/syncing-results-view?kind=import&id=real1&company=acme&domain=main'));
    expect(requests.filter((request) => request.method === 'POST').map((request) => new URL(request.url, 'http://x').pathname)).toEqual([`${BASE}/importJobs/d1/import`]);
  });

  it('Cancel the import cancels a running job, which then shows as cancelled and is no longer asked for', async () => {
    let cancelled = false;
    const { requests } = provider((request, url) => {
      if (request.method === 'POST' && url.pathname === `${BASE}/importJobs/j1/cancel`) {
        cancelled = true;
        return { json: job({ status: 'cancelled', rowsRead: 1000, created: 1000, finishedAt: '2026-11-29T08:01:00.000Z' }) };
      }
      if (url.pathname === `${BASE}/importJobs/j1`) return { json: cancelled ? job({ status: 'cancelled', rowsRead: 1000, created: 1000 }) : job({ status: 'running', rowsRead: 500 }) };
      return undefined;
    });
    renderScreen(userJobs, JobView, '/syncing-results-view?kind=import&id=j1&company=acme&domain=main', { authProvider });
    const cancel = await screen.findByRole('button', { name: 'Cancel the import' });
    await waitFor(() => expect(cancel).toBeEnabled());
    await userEvent.click(cancel);
    expect(await screen.findByText('Cancelled')).toBeInTheDocument();
    expect(requests.filter((request) => request.method === 'POST').map((request) => new URL(request.url, 'http://x').pathname)).toEqual([`${BASE}/importJobs/j1/cancel`]);
    expect(screen.queryByRole('button', { name: 'Cancel the import' })).not.toBeInTheDocument();
  });

  it("reads the job where its address says, and shows the provider's sentence when it cannot", async () => {
    const { requests } = provider(() => ({ status: 404, json: { message: 'Import job j9 not found' } }));
    renderScreen(userJobs, JobView, '/syncing-results-view?kind=import&id=j9&company=globex&domain=prod', { authProvider });
    expect(await screen.findByText('The job could not be read: Import job j9 not found')).toBeInTheDocument();
    expect(requests.some((request) => request.url === '/api/companys/globex/domainNames/prod/importJobs/j9')).toBe(true);
  });

  it('an export, done, downloads its file', async () => {
    provider((_request, url) =>
      url.pathname === `${BASE}/exportJobs/e1` ? { json: job({ id: 'e1', kind: 'export', status: 'done', rowsRead: 5, options: { format: 'jsonl' } }) } : undefined,
    );
    renderScreen(userJobs, JobView, '/syncing-results-view?kind=export&id=e1', { authProvider });
    expect(await screen.findByRole('heading', { name: 'Export', level: 1 })).toBeInTheDocument();
    expect(screen.getByRole('term')).toHaveTextContent('Users exported');
    expect(screen.getByRole('button', { name: 'Download the file' })).toBeInTheDocument();
  });
});

describe('the jobs list (Sync\'ing results)', () => {
  it('lists imports and exports newest first, each a link to its screen', async () => {
    provider((_request, url) => {
      if (url.pathname === `${BASE}/importJobs`) {
        return {
          json: [job({ id: 'i2', status: 'done', createdAt: '2026-11-29T08:02:00.000Z', rowsRead: 4, created: 4 }), job({ id: 'i1', status: 'failed', error: 'x' })],
          headers: { 'Content-Range': 'importJobs 0-1/2' },
        };
      }
      if (url.pathname === `${BASE}/exportJobs`) {
        return { json: [job({ id: 'e1', kind: 'export', status: 'done', createdAt: '2026-11-29T08:01:00.000Z', options: { format: 'jsonl' } })], headers: { 'Content-Range': 'exportJobs 0-0/1' } };
      }
      return undefined;
    });
    const { addresses } = renderScreen(userJobs, JobList, '/syncing-results', { authProvider });
    const table = await screen.findByRole('table', { name: 'Import and export jobs' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[1].textContent)).toEqual(['Import', 'Export', 'Import']);
    expect(within(rows[2]).getByText('Failed')).toBeInTheDocument();
    expect(within(rows[1]).getByRole('link')).toHaveAttribute('href', '/syncing-results-view?kind=export&id=e1&company=acme&domain=main');
    fireEvent.click(rows[0]);
    await waitFor(() => expect(addresses.at(-1)).toBe('/syncing-results-view?kind=import&id=i2&company=acme&domain=main'));
  });

  it('says when there is none yet', async () => {
    provider(() => ({ json: [], headers: { 'Content-Range': 'importJobs */0' } }));
    renderScreen(userJobs, JobList, '/syncing-results', { authProvider });
    expect(await screen.findByText('No import or export yet. Choose Import / Export to start one.')).toBeInTheDocument();
  });
});
