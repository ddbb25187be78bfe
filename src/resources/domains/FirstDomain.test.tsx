import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import App from '../../App';
import { mockFetch, type RecordedRequest } from '../../test/fetchMock';
import { clearSession, getSession, updateSession } from '../../session/session';

const fresh = { id: 'fresh', name: 'fresh', displayName: 'Fresh Ltd', type: 'customer', parent: 'root' };
const created = { id: 'prod', name: 'prod', description: 'Production', primary: true };

/** A company with no domain until its first one is created; no child companies. */
function provider() {
  let domains: (typeof created)[] = [];
  return (request: RecordedRequest) => {
    const path = new URL(request.url, 'http://x').pathname;
    if (request.method === 'POST' && path.endsWith('/companys/fresh/domainNames')) {
      domains = [created];
      return { status: 201, json: created };
    }
    if (path.endsWith('/domainNames/primary')) return domains.length ? { json: domains[0] } : { status: 404, json: { message: 'not found' } };
    if (path.endsWith('/domainNames')) {
      const rows = domains.filter((domain) => !request.url.includes(`id%2C!%3D%2C${domain.id}`) && !request.url.includes(`id,!=,${domain.id}`));
      return { json: rows, headers: { 'Content-Range': `domainNames ${rows.length ? `0-${rows.length - 1}` : '*'}/${rows.length}` } };
    }
    if (path.endsWith('/childCompanys')) return { json: [], headers: { 'Content-Range': 'childCompanys */0' } };
    return { status: 404, json: { message: 'not found' } };
  };
}

beforeEach(() => {
  localStorage.clear();
  updateSession({
    user: { displayName: 'Ada Admin', email: 'admin@example.com' },
    company: fresh,
    rootCompany: { id: 'root', name: 'root', type: 'root' },
    accessToken: 'x.e30.y',
  });
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

const stillLoading = () => screen.queryByText('Please wait');

describe("a company's first domain", () => {
  it('once created, the Domains screen and then Companies show their data, not "Please wait"', async () => {
    mockFetch(provider());
    window.history.replaceState(null, '', '/dashboard');
    render(<App />);
    // the dashboard first: it asks whether companies and domains may be listed
    await screen.findByRole('heading', { name: 'Hello Ada Admin' }, { timeout: 5000 });
    await screen.findByRole('region', { name: 'Companies' });

    await userEvent.click(screen.getByRole('menuitem', { name: 'Onboarding' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Domains' }));
    const card = await screen.findByRole('region', { name: 'Current domain' }, { timeout: 5000 });
    await userEvent.click(await within(card).findByRole('button', { name: 'Create the first domain' }));

    await userEvent.type(await screen.findByLabelText(/Domain Name/, {}, { timeout: 3000 }), 'prod');
    await userEvent.type(screen.getByLabelText(/Description/), 'Production');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));

    // back on Domains: the new domain is current and the list of the others says it is empty
    await waitFor(() => expect(getSession().domain?.id).toBe('prod'));
    expect(await screen.findByText('No other domain yet. Choose New to create one.', {}, { timeout: 3000 })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Current domain' })).toHaveTextContent('prod');
    expect(stillLoading()).toBeNull();

    // its settings are one click away, the Security tab too
    await userEvent.click(screen.getByRole('link', { name: 'Security policy' }));
    expect(await screen.findByRole('tab', { name: 'Security', selected: true }, { timeout: 3000 })).toBeInTheDocument();
    expect(window.location.pathname + window.location.search).toBe('/domains/prod?company=fresh&tab=security');

    await userEvent.click(await screen.findByRole('menuitem', { name: 'Companies' }));
    expect(await screen.findByText('No child companies yet. Choose New to create one under this company.', {}, { timeout: 3000 })).toBeInTheDocument();
    expect(stillLoading()).toBeNull();
  });
});
