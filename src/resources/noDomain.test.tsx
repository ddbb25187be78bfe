import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDataProvider, MissingContextError } from '../dataProvider';
import Dashboard from '../pages/Dashboard';
import { mockFetch } from '../test/fetchMock';
import { renderScreen } from '../test/renderScreen';
import { clearSession, updateSession } from '../session/session';
import { companies } from './companies';
import { domains } from './domains';
import { registry } from './registry';
import { screenOf } from './generic/screens';

/** A path with an empty segment, or ending in '/': a call made without a domain id. */
const emptySegment = (url: string) => /\/\/|\/$/.test(new URL(url, 'http://x').pathname);

const fresh = { id: 'fresh', name: 'fresh', displayName: 'Fresh Ltd', type: 'customer', parent: 'root' };

beforeEach(() => updateSession({ company: fresh, rootCompany: { id: 'root', name: 'root' }, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

const inDomain = registry.filter((declaration) => declaration.needsDomain);

describe('a company with no domain yet', () => {
  it('declares users, groups, applications, APIs, connections, sign-in logs, the outbox and import jobs as living in a domain', () => {
    expect(inDomain.map((declaration) => declaration.name).sort()).toEqual(['apis', 'applications', 'connections', 'groups', 'outbox', 'signInEvents', 'userJobs', 'users']);
  });

  for (const declaration of inDomain) {
    const routes = Object.entries(declaration.routes) as [keyof typeof declaration.routes, string][];
    for (const [kind, path] of routes) {
      it(`${declaration.name} ${kind} (${path}) says so, leads to the first domain and calls nothing`, async () => {
        const { requests } = mockFetch(() => ({ json: [] }));
        const screenKind = kind === 'deleted' ? 'list' : kind;
        const { locations } = renderScreen(declaration, screenOf(declaration, screenKind), path);
        expect(await screen.findByRole('heading', { name: 'Company Fresh Ltd has no domain yet', level: 1 })).toBeInTheDocument();
        await userEvent.click(screen.getByRole('button', { name: 'Create the first domain' }));
        await waitFor(() => expect(locations.at(-1)).toBe(domains.routes.form));
        expect(requests).toEqual([]);
      });
    }
  }

  it('the dashboard says so in its Domains card and calls nothing without a domain id', async () => {
    const { requests } = mockFetch(() => ({ json: [], headers: { 'Content-Range': 'companys */0' } }));
    const { locations } = renderScreen(companies, Dashboard, '/dashboard');
    const card = await screen.findByRole('region', { name: 'Domains' });
    expect(await screen.findByRole('heading', { name: 'Company Fresh Ltd has no domain yet' })).toBeInTheDocument();
    await waitFor(() => expect(requests.length).toBeGreaterThan(0));
    expect(requests.map((request) => request.url).filter(emptySegment)).toEqual([]);
    await userEvent.click(screen.getByRole('button', { name: 'Create the first domain' }));
    await waitFor(() => expect(locations.at(-1)).toBe(domains.routes.form));
    expect(card).toBeInTheDocument();
  });

  it('the data provider refuses a call whose path would have an empty segment, before the network', async () => {
    const { requests } = mockFetch(() => ({ json: [], headers: { 'Content-Range': 'domainNames */0' } }));
    const provider = createDataProvider({ resources: registry, pathContext: () => ({ companyId: 'fresh', domainId: '' }) });
    const page = { pagination: { page: 1, perPage: 3 }, sort: { field: 'id', order: 'ASC' as const }, filter: {} };
    await expect(provider.getList('users', page)).rejects.toBeInstanceOf(MissingContextError);
    await expect(provider.getOne('groups', { id: 'administrators' })).rejects.toBeInstanceOf(MissingContextError);
    await expect(provider.getAdministrators()).rejects.toBeInstanceOf(MissingContextError);
    // The company's own lists need no domain.
    await provider.getList('domains', page);
    expect(requests.map((request) => request.url)).toEqual([expect.stringMatching(/^\/api\/companys\/fresh\/domainNames\?/)]);
  });
});
