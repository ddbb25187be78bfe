import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18nProvider } from './i18n/i18nProvider';
import { mockFetch, type RecordedRequest } from './test/fetchMock';
import { clearSession } from './session/session';
import { signedInAs } from './test/session';
import App from './App';

function provider(request: RecordedRequest) {
  if (request.url.includes('/childCompanys')) {
    const rows = Array.from({ length: 5 }, (_, index) => ({ id: `child${index}`, name: `child${index}`, description: `Child ${index}` }));
    return { json: rows, headers: { 'Content-Range': 'childCompanys 0-4/7' } };
  }
  if (request.url.includes('/domainNames')) {
    const rows = [
      { id: 'default', name: 'default', description: 'Default domain', primary: true },
      { id: 'extra', name: 'extra', description: 'Extra domain', primary: false },
    ];
    return { json: rows, headers: { 'Content-Range': 'domainNames 0-1/2' } };
  }
  return { status: 404, json: { message: 'not found' } };
}

/** Message keys shown as they are (a translation missing), in a text or in an accessible name. */
function rawKeys(): string[] {
  const texts: string[] = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node.nodeValue ?? '');
  for (const element of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
    for (const name of ['aria-label', 'title', 'placeholder']) texts.push(element.getAttribute(name) ?? '');
  }
  return texts.flatMap((text) => text.match(/\b(?:iam|ra|resources)\.[A-Za-z_]+\.[A-Za-z_.]+/g) ?? []);
}

beforeEach(() => {
  localStorage.clear();
  signedInAs();
});
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

describe('signed-in app', () => {
  it('shows the dashboard with the side bar heading, the menu and the cards', async () => {
    mockFetch(provider);
    window.history.replaceState(null, '', '/dashboard');
    render(<App />);
    expect(await screen.findByRole('heading', { name: 'Hello Ada Admin' }, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByText("Here is what's happening with your company root today:")).toBeInTheDocument();
    expect(screen.getByText('root [default]')).toBeInTheDocument();

    // each card once the roles allow reading its list
    const companiesCard = await screen.findByRole('region', { name: 'Companies' });
    await waitFor(() => expect(within(companiesCard).getByText('CHILD4')).toBeInTheDocument());
    expect(within(companiesCard).getAllByRole('listitem')).toHaveLength(6);
    const domainsCard = screen.getByRole('region', { name: 'Domains' });
    await waitFor(() => expect(within(domainsCard).getByText('EXTRA')).toBeInTheDocument());
    // The current domain appears once, first; the others exclude it.
    expect(within(domainsCard).getAllByText(/^DEFAULT/)).toHaveLength(1);

    expect(screen.getByText('4')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('menuitem', { name: 'Authentication' }));
    expect(await screen.findByText('Switch user')).toBeInTheDocument();
    expect(screen.getByRole('menuitem', { name: 'Reset Password' })).toHaveAttribute('href', '/reset-password');
  });

  it('remembers the side bar choice in localStorage sidebar-expanded', async () => {
    mockFetch(provider);
    window.history.replaceState(null, '', '/dashboard');
    render(<App />);
    await screen.findByRole('heading', { name: 'Hello Ada Admin' }, { timeout: 5000 });
    const toggle = screen.getAllByRole('button', { name: /menu/i })[0];
    await userEvent.click(toggle);
    await waitFor(() => expect(localStorage.getItem('sidebar-expanded')).not.toBeNull());
  });

  it('has a user menu with the display name, the e-mail, Settings and Logout', async () => {
    mockFetch(provider);
    window.history.replaceState(null, '', '/dashboard');
    render(<App />);
    await screen.findByRole('heading', { name: 'Hello Ada Admin' }, { timeout: 5000 });
    await userEvent.click(screen.getByRole('button', { name: /Profile|Ada Admin/ }));
    const menu = await screen.findByRole('menu');
    expect(within(menu).getByText('admin@example.com')).toBeInTheDocument();
    expect(within(menu).getByRole('menuitem', { name: 'Settings' })).toBeInTheDocument();
    expect(within(menu).getByRole('menuitem', { name: 'Logout' })).toHaveAttribute('href', '/logout');
  });

  it('shows the 404 page for unknown paths', async () => {
    mockFetch(provider);
    window.history.replaceState(null, '', '/analytics');
    render(<App />);
    expect(await screen.findByRole('heading', { name: 'Oops! There is something problem!' })).toBeInTheDocument();
  });

  it('switches the theme and stores it under "theme"', async () => {
    mockFetch(provider);
    window.history.replaceState(null, '', '/dashboard');
    render(<App />);
    await screen.findByRole('heading', { name: 'Hello Ada Admin' }, { timeout: 5000 });
    await userEvent.click(screen.getByRole('button', { name: /light\/dark/i }));
    await waitFor(() => expect(localStorage.getItem('theme')).toBe('dark'));
  });

  // Last in this file: once a screen has loaded, the screens' words stay in the provider.
  it("shows the first screen with its own words, and loads a screen's words with the screen", async () => {
    mockFetch(provider);
    window.history.replaceState(null, '', '/dashboard');
    render(<App />);
    await screen.findByRole('heading', { name: 'Hello Ada Admin' }, { timeout: 5000 });
    await userEvent.click(screen.getByRole('button', { name: /Profile|Ada Admin/ }));
    await screen.findByRole('menu');
    expect(rawKeys()).toEqual([]);
    // the first screen did not load them (i18n/screens.ts)
    expect(i18nProvider.translate('iam.domains.setPrimary')).toBe('iam.domains.setPrimary');

    await userEvent.keyboard('{Escape}');
    await userEvent.click(screen.getByRole('menuitem', { name: 'Onboarding' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Domains' }));
    expect(await screen.findByRole('button', { name: 'Set Primary' }, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Current domain' })).toBeInTheDocument();
    await waitFor(() => expect(screen.getAllByRole('row').length).toBeGreaterThan(1));
    expect(rawKeys()).toEqual([]);
  });
});
