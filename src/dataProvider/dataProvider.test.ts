import { lazy } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, readable } from '../test/fetchMock';
import { registry } from '../resources/registry';
import type { ResourceDeclaration } from '../resources/types';
import { updateSession, clearSession } from '../session/session';
import { createDataProvider, MAX_LIST_URL } from './dataProvider';

const listAnswer = (name: string, rows: unknown[]) => ({
  json: rows,
  headers: { 'Content-Range': `${name} 0-${Math.max(0, rows.length - 1)}/${rows.length}` },
});

beforeEach(() => {
  updateSession({
    company: { id: 'acme', name: 'acme', type: 'reseller', parent: 'root' },
    domain: { id: 'main', name: 'main', primary: true },
    accessToken: 'token-123',
  });
});

afterEach(() => {
  clearSession();
  vi.unstubAllGlobals();
});

const page = { pagination: { page: 2, perPage: 3 }, sort: { field: 'name', order: 'ASC' as const }, filter: { q: 'x' } };

describe('data provider: companies', () => {
  const provider = createDataProvider({ resources: registry });

  it('lists the children of the current company with simple-rest paging, sort and filter', async () => {
    const { requests } = mockFetch(() => listAnswer('childCompanys', [{ id: 'a' }]));
    const result = await provider.getList('companies', page);
    expect(readable(requests[0].url)).toBe('/api/companys/acme/childCompanys?filter={"q":"x"}&range=[3,5]&sort=["name","ASC"]');
    expect(requests[0].headers.get('Authorization')).toBe('Bearer token-123');
    expect(result).toEqual({ data: [{ id: 'a' }], total: 1 });
  });

  it('reads, creates, updates and deletes single companies under /companys', async () => {
    const { requests } = mockFetch((request) => ({ json: request.body ? JSON.parse(request.body) : { id: 'beta' } }));
    await provider.getOne('companies', { id: 'beta' });
    const created = await provider.create('companies', {
      data: { name: 'beta', displayName: 'Beta', description: 'd', type: 'customer', parent: 'acme' },
    });
    await provider.update('companies', { id: 'beta', data: { id: 'beta', name: 'beta', description: 'e' }, previousData: { id: 'beta' } });
    await provider.delete('companies', { id: 'beta' });
    expect(requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /api/companys/beta',
      'POST /api/companys',
      'PUT /api/companys/beta',
      'DELETE /api/companys/beta',
    ]);
    // docs/CONSOLE.md, "Companies": the create payload is the form fields plus id (= name) and parent.
    expect(JSON.parse(requests[1].body!)).toEqual({
      name: 'beta',
      displayName: 'Beta',
      description: 'd',
      type: 'customer',
      parent: 'acme',
      id: 'beta',
    });
    expect(created.data.id).toBe('beta');
    expect(JSON.parse(requests[2].body!)).toEqual({ id: 'beta', name: 'beta', description: 'e' });
  });

  it('deletes many companies with one list body and gets many by id filter', async () => {
    const { requests } = mockFetch((request) =>
      request.method === 'DELETE' ? { json: [{ id: 'a' }, { id: 'b' }] } : { json: [{ id: 'a' }] },
    );
    const deleted = await provider.deleteMany('companies', { ids: ['a', 'b'] });
    await provider.getMany('companies', { ids: ['a'] });
    expect(requests[0].method).toBe('DELETE');
    expect(requests[0].url).toBe('/api/companys');
    expect(JSON.parse(requests[0].body!)).toEqual(['a', 'b']);
    expect(deleted.data).toEqual(['a', 'b']);
    expect(readable(requests[1].url)).toBe('/api/companys/acme/childCompanys?filter={"id":["a"]}&range=[0,0]');
  });

  it('updates many with one PUT per id and lists references', async () => {
    const { requests } = mockFetch((request) =>
      request.method === 'PUT' ? { json: { id: request.url.split('/').pop() } } : listAnswer('childCompanys', []),
    );
    await provider.updateMany('companies', { ids: ['a', 'b'], data: { description: 'same' } });
    await provider.getManyReference('companies', { ...page, target: 'parent', id: 'acme' });
    expect(requests.slice(0, 2).map((request) => `${request.method} ${request.url}`)).toEqual([
      'PUT /api/companys/a',
      'PUT /api/companys/b',
    ]);
    expect(readable(requests[2].url)).toBe(
      '/api/companys/acme/childCompanys?filter={"q":"x","parent":"acme"}&range=[3,5]&sort=["name","ASC"]',
    );
  });
});

describe('data provider: domains', () => {
  const provider = createDataProvider({ resources: registry });

  it('uses the company of the session, or the one given in meta', async () => {
    const { requests } = mockFetch((request) =>
      request.method === 'GET' && !request.url.endsWith('/primary') ? listAnswer('domainNames', []) : { json: { id: 'x' } },
    );
    await provider.getList('domains', page);
    await provider.getOne('domains', { id: 'primary', meta: { pathContext: { companyId: 'other' } } });
    await provider.create('domains', { data: { name: 'new.example', description: 'n' } });
    expect(readable(requests[0].url)).toMatch(/^\/api\/companys\/acme\/domainNames\?/);
    expect(requests[1].url).toBe('/api/companys/other/domainNames/primary');
    expect(`${requests[2].method} ${requests[2].url}`).toBe('POST /api/companys/acme/domainNames');
    expect(JSON.parse(requests[2].body!)).toEqual({ name: 'new.example', description: 'n', id: 'new.example' });
  });

  it('sends conditions from meta and PUTs the whole list for Set Primary', async () => {
    const { requests } = mockFetch((request) =>
      request.method === 'GET' ? listAnswer('domainNames', []) : { json: JSON.parse(request.body!) },
    );
    await provider.getList('domains', { ...page, meta: { condition: 'id,!=,main' } });
    await provider.replaceAll('domains', {
      data: [
        { id: 'main', primary: false },
        { id: 'second', primary: true },
      ],
    });
    expect(readable(requests[0].url)).toContain('&condition=id,!=,main');
    expect(`${requests[1].method} ${requests[1].url}`).toBe('PUT /api/companys/acme/domainNames');
    expect(JSON.parse(requests[1].body!)).toEqual([
      { id: 'main', primary: false },
      { id: 'second', primary: true },
    ]);
  });
});

describe('data provider: soft-deletable users', () => {
  const provider = createDataProvider({ resources: registry });

  it('lists active users by default and deleted ones on request', async () => {
    const { requests } = mockFetch(() => listAnswer('users', []));
    await provider.getList('users', page);
    await provider.getList('users', { ...page, filter: { condition: 'status,=,deleted' } });
    expect(readable(requests[0].url)).toBe(
      '/api/companys/acme/domainNames/main/users?filter={"q":"x"}&range=[3,5]&sort=["name","ASC"]&condition=status,!=,deleted',
    );
    expect(readable(requests[1].url)).toContain('&condition=status,=,deleted');
    expect(readable(requests[1].url)).not.toContain('"condition"');
  });

  it('asks a deferred total and answers pageInfo when more rows follow uncounted, the total when the page reaches the end', async () => {
    const answers = [
      { json: [{ id: 'a' }, { id: 'b' }, { id: 'c' }], headers: { 'Content-Range': 'users 3-5/*' } },
      { json: [{ id: 'd' }], headers: { 'Content-Range': 'users 6-6/7' } },
    ];
    const { requests } = mockFetch(() => answers.shift()!);
    const uncounted = await provider.getList('users', { ...page, meta: { deferTotal: true } });
    expect(readable(requests[0].url)).toBe(
      '/api/companys/acme/domainNames/main/users?total=deferred&filter={"q":"x"}&range=[3,5]&sort=["name","ASC"]&condition=status,!=,deleted',
    );
    expect(uncounted).toEqual({ data: [{ id: 'a' }, { id: 'b' }, { id: 'c' }], pageInfo: { hasNextPage: true, hasPreviousPage: true } });
    const last = await provider.getList('users', { ...page, pagination: { page: 3, perPage: 3 }, meta: { deferTotal: true } });
    expect(last).toEqual({ data: [{ id: 'd' }], total: 7 });
  });
});

describe('data provider: long id lists (docs/DECISIONS.md, "Long list queries")', () => {
  const provider = createDataProvider({ resources: registry });
  /** Ids of 128 characters, as the provider allows. */
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `${String(i).padStart(4, '0')}${'x'.repeat(124)}`);

  it('gets every id, in calls of at most 1000, as QUERY when the URL would be too long', async () => {
    const { requests } = mockFetch((request) => {
      const asked: string[] = JSON.parse(JSON.parse(request.body!).filter).id;
      return { json: asked.map((id) => ({ id })) };
    });
    const wanted = ids(2500);
    const result = await provider.getMany('users', { ids: wanted });
    expect(result.data.map((user) => user.id)).toEqual(wanted);
    expect(requests.map((request) => `${request.method} ${request.url}`)).toEqual(
      Array(3).fill('QUERY /api/companys/acme/domainNames/main/users'),
    );
    expect(requests.map((request) => JSON.parse(request.body!))).toEqual([
      { filter: JSON.stringify({ id: wanted.slice(0, 1000) }), range: '[0,999]' },
      { filter: JSON.stringify({ id: wanted.slice(1000, 2000) }), range: '[0,999]' },
      { filter: JSON.stringify({ id: wanted.slice(2000) }), range: '[0,499]' },
    ]);
    expect(requests[0].headers.get('Content-Type')).toBe('application/json');
  });

  it('keeps a short id list a GET with a range covering every id', async () => {
    const { requests } = mockFetch(() => ({ json: [] }));
    await provider.getMany('users', { ids: ids(20) });
    expect(requests[0].method).toBe('GET');
    expect(readable(requests[0].url)).toContain('&range=[0,19]');
    expect(requests[0].url.length).toBeLessThanOrEqual(MAX_LIST_URL);
  });

  it('sends a list with a long filter as QUERY with the same parameters, conditions and Range header', async () => {
    const { requests } = mockFetch(() => listAnswer('users', [{ id: 'a' }]));
    const wanted = ids(40);
    const result = await provider.getList('users', { ...page, filter: { id: wanted } });
    expect(result).toEqual({ data: [{ id: 'a' }], total: 1 });
    expect(`${requests[0].method} ${requests[0].url}`).toBe('QUERY /api/companys/acme/domainNames/main/users');
    expect(JSON.parse(requests[0].body!)).toEqual({
      filter: JSON.stringify({ id: wanted }),
      range: '[3,5]',
      sort: '["name","ASC"]',
      condition: 'status,!=,deleted',
    });
    expect(requests[0].headers.get('Range')).toBe('users=3-5');
    await provider.getList('users', { ...page, filter: { id: wanted.slice(0, 2) }, meta: { condition: ['status,!=,deleted', 'id,>,0'] } });
    expect(requests[1].method).toBe('GET');
  });
});

describe('a new resource type by declaration only', () => {
  const widgets: ResourceDeclaration = {
    name: 'widgets',
    labelKey: 'resources.widgets.name',
    icon: () => null,
    paths: {
      collection: ({ companyId, domainId }) => `${companyId}/${domainId}/widget`,
      records: () => 'widget',
    },
    fields: [
      { source: 'label', kind: 'text', required: true },
      { source: 'notes', kind: 'textarea' },
    ],
    listColumns: ['label'],
    formFields: ['label', 'notes'],
    idFromField: 'label',
    softDelete: { field: 'state', active: 'on', deleted: 'gone' },
    defaultSort: { field: 'label', order: 'ASC' },
    pageSize: 15,
    pageWindow: 10,
    routes: { list: '/widgets', form: '/widgets-new' },
    screens: { list: lazy(async () => ({ default: () => null })), form: lazy(async () => ({ default: () => null })) },
  };
  const provider = createDataProvider({ resources: [...registry, widgets] });

  it('gets list, create and update URLs and payloads from the declaration', async () => {
    const { requests } = mockFetch((request) =>
      request.method === 'GET'
        ? listAnswer('widget', [{ id: 'w1', label: 'w1' }])
        : { json: { ...JSON.parse(request.body!), id: JSON.parse(request.body!).id ?? 'w1' } },
    );
    const list = await provider.getList('widgets', {
      pagination: { page: 1, perPage: widgets.pageSize },
      sort: widgets.defaultSort,
      filter: {},
    });
    const created = await provider.create('widgets', { data: { label: 'w2', notes: 'n' } });
    await provider.update('widgets', { id: 'w1', data: { id: 'w1', label: 'w1', notes: 'changed' }, previousData: { id: 'w1' } });

    expect(list.total).toBe(1);
    expect(readable(requests[0].url)).toBe(
      '/api/acme/main/widget?filter={}&range=[0,14]&sort=["label","ASC"]&condition=state,!=,gone',
    );
    expect(`${requests[1].method} ${requests[1].url}`).toBe('POST /api/widget');
    expect(JSON.parse(requests[1].body!)).toEqual({ label: 'w2', notes: 'n', id: 'w2' });
    expect(created.data).toEqual({ label: 'w2', notes: 'n', id: 'w2' });
    expect(`${requests[2].method} ${requests[2].url}`).toBe('PUT /api/widget/w1');
    expect(JSON.parse(requests[2].body!)).toEqual({ id: 'w1', label: 'w1', notes: 'changed' });
  });

  it('rejects calls for resources nobody declared', async () => {
    await expect(provider.getOne('gadgets', { id: 1 })).rejects.toThrow(/Unknown resource "gadgets"/);
  });
});

describe('errors', () => {
  it('surface the provider message and status', async () => {
    mockFetch(() => ({ status: 409, json: { statusCode: 409, error: 'Conflict', message: 'duplicated error: beta already exist!' } }));
    const provider = createDataProvider({ resources: registry });
    await expect(provider.create('companies', { data: { name: 'beta' } })).rejects.toMatchObject({
      status: 409,
      message: 'duplicated error: beta already exist!',
    });
  });
});
