import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import DomainForm from '../domains/DomainForm';
import { domains } from '../domains';

const company = { id: 'acme', name: 'acme', type: 'reseller' };
const open = (state?: object) => renderScreen(domains, DomainForm, { pathname: domains.routes.form, state });

beforeEach(() => updateSession({ company, domain: { id: 'main', name: 'main', primary: true }, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe("a domain's languages (docs/CONSOLE.md, \"Domains\")", () => {
  it('offers the six by their own names and a default; chosen ones are sent, none chosen is null (all)', async () => {
    const { requests } = mockFetch((request) => ({ json: JSON.parse(request.body!) }));
    open({ company, domain: { id: 'shop', name: 'shop', description: 'Shop', primary: false, languages: ['en', 'fr'], defaultLanguage: 'fr' }, mode: 'edit' });
    const french = await screen.findByRole('checkbox', { name: 'Français' });
    expect(french).toBeChecked();
    for (const name of ['English', 'Deutsch', 'Español', '日本語', 'العربية']) expect(screen.getByRole('checkbox', { name })).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: 'Deutsch' })).not.toBeChecked();
    expect(screen.getByRole('combobox', { name: 'Default language' })).toHaveTextContent('Français');

    await userEvent.click(screen.getByRole('checkbox', { name: 'Deutsch' }));
    await userEvent.click(screen.getByRole('combobox', { name: 'Default language' }));
    await userEvent.click(screen.getByRole('option', { name: 'Deutsch' }));
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(requests.filter((request) => request.method === 'PUT')).toHaveLength(1));
    expect(JSON.parse(requests.find((request) => request.method === 'PUT')!.body!)).toMatchObject({ languages: ['en', 'fr', 'de'], defaultLanguage: 'de' });
  });

  it('sends null when every language is unticked: the domain offers them all', async () => {
    const { requests } = mockFetch((request) => ({ json: JSON.parse(request.body!) }));
    open({ company, domain: { id: 'shop', name: 'shop', description: 'Shop', primary: false, languages: ['ja'], defaultLanguage: null }, mode: 'edit' });
    await userEvent.click(await screen.findByRole('checkbox', { name: '日本語' }));
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(requests.filter((request) => request.method === 'PUT')).toHaveLength(1));
    expect(JSON.parse(requests.find((request) => request.method === 'PUT')!.body!)).toMatchObject({ languages: null });
  });
});
