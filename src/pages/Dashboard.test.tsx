import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { companies } from '../resources/companies';
import { mockFetch, type RecordedRequest } from '../test/fetchMock';
import { renderScreen } from '../test/renderScreen';
import { signedInAs } from '../test/session';
import { clearSession } from '../session/session';
import Dashboard from './Dashboard';

function provider(request: RecordedRequest) {
  if (request.url.includes('/childCompanys')) return { json: [{ id: 'child0', name: 'child0', description: 'Child 0' }], headers: { 'Content-Range': 'childCompanys 0-0/1' } };
  if (request.url.endsWith('/domainNames/primary')) return { json: { id: 'default', name: 'default', primary: true } };
  if (request.url.includes('/domainNames')) {
    const rows = [
      { id: 'default', name: 'default', description: 'Default domain', primary: true },
      { id: 'extra', name: 'extra', description: 'Extra domain', primary: false },
    ];
    return { json: rows, headers: { 'Content-Range': 'domainNames 0-1/2' } };
  }
  return { status: 404, json: { message: 'not found' } };
}

beforeEach(() => signedInAs());
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the dashboard leads somewhere real', () => {
  it("each View opens that company's or domain's own screen, and each card its whole list", async () => {
    mockFetch(provider);
    const { addresses } = renderScreen(companies, Dashboard, '/dashboard');
    const companiesCard = await screen.findByRole('region', { name: 'Companies' });
    expect(await within(companiesCard).findByRole('link', { name: 'View ROOT' })).toHaveAttribute('href', '/companies/root');
    expect(await within(companiesCard).findByRole('link', { name: 'View CHILD0' })).toHaveAttribute('href', '/companies/child0');
    expect(within(companiesCard).getByRole('link', { name: 'All companies' })).toHaveAttribute('href', '/onboarding-companies');

    const domainsCard = screen.getByRole('region', { name: 'Domains' });
    expect(await within(domainsCard).findByRole('link', { name: 'View DEFAULT' })).toHaveAttribute('href', '/domains/default?company=root');
    const extra = await within(domainsCard).findByRole('link', { name: 'View EXTRA' });
    expect(extra).toHaveAttribute('href', '/domains/extra?company=root');
    expect(within(domainsCard).getByRole('link', { name: 'All domains' })).toHaveAttribute('href', '/onboarding-domains');

    await userEvent.click(extra);
    await waitFor(() => expect(addresses.at(-1)).toBe('/domains/extra?company=root'));
  });

  it('a card whose list could not be read says so and reads it again on Try again', async () => {
    let failing = true;
    const { requests } = mockFetch((request) =>
      failing && request.url.includes('/childCompanys') ? { status: 500, json: { message: 'boom' } } : provider(request),
    );
    renderScreen(companies, Dashboard, '/dashboard');
    const card = await screen.findByRole('region', { name: 'Companies' });
    expect(await within(card).findByRole('alert')).toHaveTextContent('This list could not be read.');
    failing = false;
    await userEvent.click(within(card).getByRole('button', { name: 'Try again' }));
    expect(await within(card).findByRole('link', { name: 'View CHILD0' })).toBeInTheDocument();
    expect(requests.filter((request) => request.url.includes('/childCompanys'))).toHaveLength(2);
  });
});
