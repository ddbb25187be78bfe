import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, readable, type RecordedRequest } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, getSession, updateSession } from '../../session/session';
import DomainList from './DomainList';
import { domains } from './index';

const main = { id: 'main', name: 'main', description: 'Main domain', primary: true };
const others = [
  { id: 'second', name: 'second', description: 'Second domain', primary: false },
  { id: 'third', name: 'third', description: 'Third domain', primary: false },
];

function provider(request: RecordedRequest) {
  if (request.method === 'GET') {
    const all = readable(request.url).includes('condition=id,!=,main') ? others : [main, ...others];
    return { json: all, headers: { 'Content-Range': `domainNames 0-${all.length - 1}/${all.length}` } };
  }
  return { json: JSON.parse(request.body!) };
}

beforeEach(() => updateSession({ company: { id: 'acme', name: 'acme' }, domain: main, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('domains list', () => {
  it('shows the current domain and lists the others', async () => {
    const { requests } = mockFetch(provider);
    renderScreen(domains, DomainList, domains.routes.list);
    expect(await screen.findByText('Second domain')).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Current (primary) domain' })).toHaveTextContent('Main domain');
    expect(readable(requests[0].url)).toContain('/api/companys/acme/domainNames?');
    expect(readable(requests[0].url)).toContain('condition=id,!=,main');
  });

  it('Set Primary PUTs the whole list with primary only on the chosen domain and makes it current', async () => {
    const { requests } = mockFetch(provider);
    renderScreen(domains, DomainList, domains.routes.list);
    await screen.findByText('Second domain');
    const setPrimary = screen.getByRole('button', { name: 'Set Primary' });
    expect(setPrimary).toBeDisabled();
    const row = screen.getAllByRole('row').find((candidate) => within(candidate).queryByText('third'))!;
    await userEvent.click(within(row).getByRole('checkbox'));
    await userEvent.click(setPrimary);
    await waitFor(() => expect(getSession().domain?.id).toBe('third'));
    const put = requests.find((request) => request.method === 'PUT')!;
    expect(put.url).toBe('/api/companys/acme/domainNames');
    expect(JSON.parse(put.body!)).toEqual([
      { ...main, primary: false },
      { ...others[0], primary: false },
      { ...others[1], primary: true },
    ]);
  });
});
