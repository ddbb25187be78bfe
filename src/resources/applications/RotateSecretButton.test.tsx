import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AdminContext, memoryStore } from 'react-admin';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18nProvider, loadScreenWords } from '../../i18n/i18nProvider';
import { clearSession, updateSession } from '../../session/session';
import { mockFetch } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import ApplicationView from './ApplicationView';
import { applications } from './index';
import { RotateSecretButton } from './RotateSecretButton';

const application = { id: 'app_123', client_name: 'Shop' };
const EXPIRES = '2030-01-02T03:04:05.000Z';

function mount(onRotated = vi.fn()) {
  render(
    <AdminContext i18nProvider={i18nProvider} store={memoryStore()}>
      <RotateSecretButton application={application} onRotated={onRotated} />
    </AdminContext>,
  );
  return onRotated;
}

// The button is part of the application view, which shows once the screens' words are loaded (DeclaredRoute).
beforeAll(() => loadScreenWords());
beforeEach(() => updateSession({ accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('RotateSecretButton', () => {
  it('offers the grace periods, posts the chosen one, then shows the new secret once with the time the old one stops', async () => {
    const user = userEvent.setup();
    const { requests } = mockFetch(() => ({
      json: { client_id: 'app_123', client_secret: 'n3w-s3cr3t', previousSecretExpiresAt: EXPIRES },
    }));
    const onRotated = mount();
    await user.click(screen.getByRole('button', { name: 'Rotate secret' }));
    const dialog = await screen.findByRole('dialog', { name: 'Rotate the client secret of Shop' });
    const choices = within(dialog).getAllByRole('radio');
    expect(choices.map((radio) => radio.closest('label')!.textContent)).toEqual([
      'No: it stops now',
      'For 1 hour',
      'For 1 day',
      'For 7 days',
    ]);
    expect(requests).toHaveLength(0);

    await user.click(within(dialog).getByRole('radio', { name: 'For 7 days' }));
    await user.click(within(dialog).getByRole('button', { name: 'Rotate' }));

    const shown = await screen.findByRole('dialog', { name: 'New client secret' });
    expect(requests).toHaveLength(1);
    expect(`${requests[0].method} ${requests[0].url}`).toBe('POST /api/application/app_123/secret');
    expect(requests[0].headers.get('Authorization')).toBe('Bearer t');
    expect(JSON.parse(requests[0].body!)).toEqual({ graceSeconds: 604800 });
    expect(within(shown).getByRole('textbox', { name: 'New client secret' })).toHaveValue('n3w-s3cr3t');
    expect(shown).toHaveTextContent("won't be shown again");
    const time = new Date(EXPIRES).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });
    expect(shown).toHaveTextContent(`The previous secret stops working at ${time}.`);
    expect(onRotated).toHaveBeenCalledWith({ client_id: 'app_123', client_secret: 'n3w-s3cr3t', previousSecretExpiresAt: EXPIRES });

    await user.click(within(shown).getByRole('button', { name: 'Copy' }));
    expect(await within(shown).findByRole('status')).toHaveTextContent('Copied to the clipboard.');
    expect(await navigator.clipboard.readText()).toBe('n3w-s3cr3t');

    await user.click(within(shown).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.queryByText('n3w-s3cr3t')).not.toBeInTheDocument();
    expect(screen.queryByDisplayValue('n3w-s3cr3t')).not.toBeInTheDocument();
  });

  it('can be driven from the keyboard; no grace means the old secret stopped at once', async () => {
    const user = userEvent.setup();
    const { requests } = mockFetch(() => ({ json: { client_id: 'app_123', client_secret: 'k3y', previousSecretExpiresAt: null } }));
    mount();
    await user.tab();
    expect(screen.getByRole('button', { name: 'Rotate secret' })).toHaveFocus();
    await user.keyboard('{Enter}');
    const dialog = await screen.findByRole('dialog');
    await user.tab();
    expect(within(dialog).getByRole('radio', { name: 'For 1 hour' })).toHaveFocus();
    await user.keyboard('{ArrowUp}');
    expect(within(dialog).getByRole('radio', { name: 'No: it stops now' })).toBeChecked();
    await user.tab();
    await user.tab();
    expect(within(dialog).getByRole('button', { name: 'Rotate' })).toHaveFocus();
    await user.keyboard('{Enter}');
    const shown = await screen.findByRole('dialog', { name: 'New client secret' });
    expect(JSON.parse(requests[0].body!)).toEqual({ graceSeconds: 0 });
    expect(shown).toHaveTextContent('The previous secret has stopped working.');
  });

  it('Cancel and Escape leave without rotating', async () => {
    const user = userEvent.setup();
    const { requests } = mockFetch();
    mount();
    await user.click(screen.getByRole('button', { name: 'Rotate secret' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await user.click(screen.getByRole('button', { name: 'Rotate secret' }));
    await screen.findByRole('dialog');
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(requests).toHaveLength(0);
  });

  it("shows the provider's refusal and keeps the choice open; the default grace is one hour", async () => {
    const user = userEvent.setup();
    const { requests } = mockFetch(() => ({ status: 404, json: { statusCode: 404, error: 'Not Found', message: 'application app_123 not found' } }));
    const onRotated = mount();
    await user.click(screen.getByRole('button', { name: 'Rotate secret' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByRole('radio', { name: 'For 1 hour' })).toBeChecked();
    await user.click(within(dialog).getByRole('button', { name: 'Rotate' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('application app_123 not found');
    expect(JSON.parse(requests[0].body!)).toEqual({ graceSeconds: 3600 });
    expect(onRotated).not.toHaveBeenCalled();
  });
});

describe('on the application view', () => {
  const view = (app_type: string, status = 'active') => {
    updateSession({ company: { id: 'root', name: 'root' }, domain: { id: 'default', name: 'default' } });
    return renderScreen(applications, ApplicationView, {
      pathname: '/applications-view',
      state: {
        company: { id: 'root', name: 'root' },
        domain: { id: 'default', name: 'default' },
        application: { id: 'app_123', client_id: 'app_123', client_name: 'Shop', app_type, domain: 'default', status },
      },
    });
  };

  it('the Settings tab offers Rotate secret for a confidential client, not for a public one', async () => {
    const user = userEvent.setup();
    // Lists (the domains of the Settings form) answer empty; the discovery document is not needed here.
    mockFetch(() => ({ json: [], headers: { 'Content-Range': 'items */0' } }));
    view('web');
    await user.click(await screen.findByRole('tab', { name: 'Settings' }));
    expect(await screen.findByRole('button', { name: 'Rotate secret' })).toBeInTheDocument();

    cleanup();
    view('SPA');
    await user.click(await screen.findByRole('tab', { name: 'Settings' }));
    await screen.findByRole('tabpanel');
    expect(screen.queryByRole('button', { name: 'Rotate secret' })).not.toBeInTheDocument();
  });

  it('a deleted application offers Rotate secret disabled, with the reason in a tooltip', async () => {
    const user = userEvent.setup();
    const { requests } = mockFetch(() => ({ json: [], headers: { 'Content-Range': 'items */0' } }));
    view('machine', 'deleted');
    await user.click(await screen.findByRole('tab', { name: 'Settings' }));
    const button = await screen.findByRole('button', { name: 'Rotate secret' });
    expect(button).toBeDisabled();
    await user.hover(button.parentElement!);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('This application is deleted: recover it before rotating its secret.');
    expect(requests.filter((request) => request.url.includes('/secret'))).toHaveLength(0);
  });
});
