import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { authProvider } from '../../authProvider/authProvider';
import { EVERY_PERMISSION, mockFetch, type RecordedRequest } from '../../test/fetchMock';
import { renderScreen } from '../../test/renderScreen';
import { clearSession, updateSession } from '../../session/session';
import CompanyForm from '../companies/CompanyForm';
import { companies } from '../companies';
import { createTheme, type ThemeOptions } from '@mui/material/styles';
import { lightTheme } from '../../layout/theme';
import { brandedTheme } from './consoleBranding';
import { apiErrorSentence } from '../../http/apiErrorText';

const reseller = { id: 'resell', name: 'resell', displayName: 'Resell Inc', type: 'reseller' };
const customer = { id: 'acme', name: 'acme', displayName: 'Acme', type: 'customer', parent: 'resell' };
const PERMISSIONS = [...EVERY_PERMISSION, 'branding:read', 'branding:write'];

/** Acme sets nothing of its own: everything comes from its reseller. */
const INHERITED = {
  id: 'acme',
  displayName: null,
  primaryLight: null,
  backgroundLight: null,
  primaryDark: null,
  backgroundDark: null,
  supportEmail: null,
  supportUrl: null,
  logoUrl: null,
  iconUrl: null,
  effective: {
    displayName: 'Resell Inc',
    primaryLight: '#0b5394',
    backgroundLight: '#ffffff',
    logoUrl: '/branding/resell/logo?v=2',
    inheritedFrom: { displayName: 'resell', primaryLight: 'resell', backgroundLight: 'resell', logoUrl: 'resell' },
  },
};

const open = () =>
  renderScreen(companies, CompanyForm, { pathname: '/companies/acme', state: { company: customer, parent: reseller, mode: 'view' } }, { notifications: true, authProvider });
const calls = (requests: RecordedRequest[], path: string) => requests.filter((request) => request.url.includes(path)).map((request) => `${request.method} ${request.url}`);

beforeEach(() => updateSession({ company: reseller, rootCompany: reseller, accessToken: 't' }));
afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('a company\'s Branding tab (docs/CONSOLE.md, "Branding")', () => {
  it('says what is inherited and from which company, checks the contrast as typed, previews, and saves the own fields', async () => {
    const { requests } = mockFetch(
      (request) => {
        if (request.method === 'PUT' && request.url.endsWith('/branding')) {
          const body = JSON.parse(request.body!);
          if (body.primaryDark === '#333333') return { status: 400, json: { statusCode: 400, error: 'Bad Request', message: 'primaryDark: contrast 1.2:1 on backgroundDark, below 4.5:1' } };
          return { json: { ...INHERITED, ...body, effective: { ...INHERITED.effective, ...body, inheritedFrom: { ...INHERITED.effective.inheritedFrom, primaryLight: 'acme' } } } };
        }
        return { json: INHERITED };
      },
      { permissions: PERMISSIONS },
    );
    open();
    const tab = await screen.findByRole('tab', { name: 'Branding' });
    expect(calls(requests, '/branding')).toEqual([]);
    await userEvent.click(tab);
    const primary = await screen.findByLabelText('Primary colour (light theme)');
    expect(calls(requests, '/branding')).toEqual(['GET /api/companys/acme/branding']);
    expect(primary).toHaveValue('');
    expect(screen.getByText('Inherited from resell: #0b5394')).toBeInTheDocument();
    expect(screen.getByText('Inherited from resell: Resell Inc')).toBeInTheDocument();
    expect(screen.getByText('Inherited from resell')).toBeInTheDocument(); // the logo
    expect(screen.getByRole('img', { name: 'Current Logo' })).toHaveAttribute('src', '/branding/resell/logo?v=2');
    expect(screen.getByTestId('contrast-light')).toHaveTextContent('Light theme: contrast 7.84:1, passes WCAG AA (at least 4.5:1).');
    // the preview shows the inherited name and colours
    expect(within(screen.getByTestId('preview-light')).getByText('Resell Inc')).toBeInTheDocument();

    // a light yellow on white: below AA, said at once; a half-typed colour is not used
    await userEvent.type(primary, '#ffeb3');
    expect(screen.getByText('Use a colour as #rrggbb, for example #1565c0.')).toBeInTheDocument();
    await userEvent.type(primary, 'b');
    expect(screen.getByTestId('contrast-light')).toHaveTextContent(/contrast 1\.\d\d:1, below WCAG AA/);
    expect(screen.getByText('Set for this company')).toBeInTheDocument();
    // Inherit clears it
    await userEvent.click(screen.getByRole('button', { name: 'Inherit Primary colour (light theme)' }));
    expect(primary).toHaveValue('');
    await userEvent.type(primary, '#004d40');
    expect(screen.getByTestId('contrast-light')).toHaveTextContent('passes');

    // the provider's refusal is shown in its words
    await userEvent.type(screen.getByLabelText('Primary colour (dark theme)'), '#333333');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The branding was not saved: primaryDark: contrast 1.2:1 on backgroundDark, below 4.5:1');

    await userEvent.clear(screen.getByLabelText('Primary colour (dark theme)'));
    await userEvent.type(screen.getByLabelText('Support e-mail address'), 'help@acme.test');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Branding of Acme saved')).toBeInTheDocument();
    const put = requests.filter((request) => request.method === 'PUT').at(-1)!;
    expect(JSON.parse(put.body!)).toEqual({ ...INHERITED, id: undefined, logoUrl: undefined, iconUrl: undefined, effective: undefined, primaryLight: '#004d40', supportEmail: 'help@acme.test' });
  });

  it('refuses a wrong image before sending it, and uploads a good one as its own body and type', async () => {
    const { requests } = mockFetch(
      (request) => ({ json: request.method === 'PUT' ? { ...INHERITED, logoUrl: '/branding/acme/logo?v=3', effective: { ...INHERITED.effective, logoUrl: '/branding/acme/logo?v=3', inheritedFrom: { logoUrl: 'acme' } } } : INHERITED }),
      { permissions: PERMISSIONS },
    );
    open();
    await userEvent.click(await screen.findByRole('tab', { name: 'Branding' }));
    const chooser = await screen.findByTestId('branding-logo-file');
    fireEvent.change(chooser, { target: { files: [new File(['<svg/>'], 'logo.svg', { type: 'image/svg+xml' })] } });
    expect(await screen.findByText('Logo: choose a PNG, JPEG or WebP image.')).toBeInTheDocument();
    fireEvent.change(chooser, { target: { files: [new File([new Uint8Array(300 * 1024)], 'big.png', { type: 'image/png' })] } });
    expect(await screen.findByText('Logo: the file is larger than 256 KB.')).toBeInTheDocument();
    expect(requests.filter((request) => request.method === 'PUT')).toHaveLength(0);

    fireEvent.change(chooser, { target: { files: [new File([new Uint8Array(100)], 'logo.png', { type: 'image/png' })] } });
    expect(await screen.findByText('Logo saved')).toBeInTheDocument();
    const put = requests.find((request) => request.method === 'PUT')!;
    expect(put.url).toBe('/api/companys/acme/branding/logo');
    expect(put.headers.get('Content-Type')).toBe('image/png');
    expect(screen.getByRole('img', { name: 'Current Logo' })).toHaveAttribute('src', '/branding/acme/logo?v=3');
    await userEvent.click(screen.getByRole('button', { name: 'Remove Logo' }));
    await waitFor(() => expect(calls(requests, '/branding/logo').at(-1)).toBe('DELETE /api/companys/acme/branding/logo'));
  });

  it("names the company each field comes from, linked to its Branding tab when the reader may open it, else its name (or id) alone", async () => {
    const named = (readable: boolean, name = 'Resell Inc') => ({ ...INHERITED, effective: { ...INHERITED.effective, inheritedFromCompanies: { resell: { name, readable } } } });
    mockFetch(() => ({ json: named(true, 'Resell Holdings') }), { permissions: PERMISSIONS });
    open();
    await userEvent.click(await screen.findByRole('tab', { name: 'Branding' }));
    await screen.findByLabelText('Primary colour (light theme)');
    const links = screen.getAllByRole('link', { name: 'Resell Holdings' });
    for (const link of links) expect(link).toHaveAttribute('href', '/companies/resell?tab=branding');
    // the sentences around them: display name, primary and background colour (light), the logo
    expect(links.map((link) => link.parentElement!.textContent)).toEqual([
      'Inherited from Resell Holdings: Resell Inc',
      'Inherited from Resell Holdings',
      'Inherited from Resell Holdings: #0b5394',
      'Inherited from Resell Holdings: #ffffff',
    ]);
    cleanup();

    // above the reader's own company: the name the provider gives (its brand), no link
    mockFetch(() => ({ json: named(false) }), { permissions: PERMISSIONS });
    open();
    await userEvent.click(await screen.findByRole('tab', { name: 'Branding' }));
    expect(await screen.findByText('Inherited from Resell Inc: #0b5394')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Resell Inc' })).toBeNull();
  });

  it('is greyed, with the reason, for someone without branding:write', async () => {
    mockFetch(() => ({ json: INHERITED }), { permissions: [...EVERY_PERMISSION, 'branding:read'] });
    open();
    await userEvent.click(await screen.findByRole('tab', { name: 'Branding' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Save' })).toBeDisabled());
    expect(screen.getByLabelText('Primary colour (light theme)')).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Upload Logo' })).toBeDisabled();
  });

  it('says so when the branding cannot be read', async () => {
    mockFetch(() => ({ status: 500, json: { message: 'database down' } }), { permissions: PERMISSIONS });
    open();
    await userEvent.click(await screen.findByRole('tab', { name: 'Branding' }));
    expect(await screen.findByText('The branding could not be read: database down')).toBeInTheDocument();
  });
});

const TEMPLATES = [
  { id: 'reset.en', kind: 'reset', language: 'en', subject: 'Reset your password', body: 'Hello {{personName}}, follow {{link}}', source: 'default' },
  { id: 'reset.fr', kind: 'reset', language: 'fr', subject: 'Réinitialisez', body: 'Bonjour {{personName}}', source: 'inherited' },
  { id: 'invite.en', kind: 'invite', language: 'en', subject: 'Join {{companyName}}', body: 'Own body {{link}}', source: 'own' },
];

describe('a company\'s E-mail templates tab (docs/CONSOLE.md, "E-mail templates")', () => {
  it('picks kind and language, inserts placeholders, previews in a sandboxed frame, saves and resets', async () => {
    const { requests } = mockFetch(
      (request) => {
        if (request.url.endsWith('/preview')) return { json: { subject: 'Reset your password', text: 'Hello Ada Lovelace', html: '<p>Hello <b>Ada</b></p><script>parent.x=1</script>' } };
        if (request.method === 'PUT') return { json: { ...TEMPLATES[0], ...JSON.parse(request.body!), source: 'own' } };
        if (request.method === 'DELETE') return { json: TEMPLATES[2] };
        return { json: TEMPLATES };
      },
      { permissions: PERMISSIONS },
    );
    open();
    await userEvent.click(await screen.findByRole('tab', { name: 'E-mail templates' }));
    const body = await screen.findByLabelText('Body');
    expect(body).toHaveValue('Hello {{personName}}, follow {{link}}');
    expect(screen.getByTestId('email-template-source')).toHaveTextContent("The provider's default");

    // a placeholder goes where the cursor is
    await userEvent.click(body);
    (body as HTMLTextAreaElement).setSelectionRange(6, 6);
    await userEvent.click(screen.getByRole('button', { name: '{{companyName}}' }));
    expect(body).toHaveValue('Hello {{companyName}}{{personName}}, follow {{link}}');

    await userEvent.click(screen.getByRole('button', { name: 'Preview' }));
    const frame = await screen.findByTitle('The e-mail as HTML');
    expect(frame).toHaveAttribute('sandbox', '');
    expect(frame.getAttribute('srcdoc')).toContain('<b>Ada</b>');
    expect(screen.getByText('Hello Ada Lovelace')).toBeInTheDocument();
    const preview = requests.find((request) => request.url.endsWith('/preview'))!;
    expect(preview.url).toBe('/api/companys/acme/emailTemplates/reset/en/preview');
    expect(JSON.parse(preview.body!)).toEqual({ subject: 'Reset your password', body: 'Hello {{companyName}}{{personName}}, follow {{link}}' });

    // Reset is for an own template only
    expect(screen.getByRole('button', { name: 'Reset to inherited' })).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Password reset (English) of Acme saved')).toBeInTheDocument();
    expect(requests.find((request) => request.method === 'PUT')!.url).toBe('/api/companys/acme/emailTemplates/reset/en');

    // another language, then another kind
    await userEvent.click(screen.getByRole('combobox', { name: 'Language' }));
    await userEvent.click(screen.getByRole('option', { name: 'Français' }));
    expect(screen.getByLabelText('Body')).toHaveValue('Bonjour {{personName}}');
    expect(screen.getByTestId('email-template-source')).toHaveTextContent('Inherited from a company above');
    await userEvent.click(screen.getByRole('combobox', { name: 'Language' }));
    await userEvent.click(screen.getByRole('option', { name: 'English' }));
    await userEvent.click(screen.getByRole('combobox', { name: 'E-mail' }));
    await userEvent.click(screen.getByRole('option', { name: 'Invitation' }));
    expect(screen.getByTestId('email-template-source')).toHaveTextContent("This company's own");
    await userEvent.click(screen.getByRole('button', { name: 'Reset to inherited' }));
    await waitFor(() => expect(requests.some((request) => request.method === 'DELETE' && request.url === '/api/companys/acme/emailTemplates/invite/en')).toBe(true));
  });

  it("shows the provider's refusal in its words", async () => {
    mockFetch(
      (request) => (request.url.endsWith('/preview') ? { status: 400, json: { message: 'body: unknown placeholder {{password}}' } } : { json: TEMPLATES }),
      { permissions: PERMISSIONS },
    );
    open();
    await userEvent.click(await screen.findByRole('tab', { name: 'E-mail templates' }));
    await screen.findByLabelText('Body');
    await userEvent.click(screen.getByRole('button', { name: 'Preview' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Not done: body: unknown placeholder {{password}}');
  });
});

describe("an ancestor's colours refused for a descendant, in the person's language", () => {
  it('fills every placeholder of branding.contrastDescendant in each language', async () => {
    const params = { field: 'primaryLight', company: 'shop', companyName: 'Shop', primary: '#767676', background: '#e0e0e0', theme: 'light', ratio: '3.44:1', minimum: '4.5:1' };
    for (const language of ['fr', 'de', 'es', 'ja', 'ar'] as const) {
      const tree = (await import(`../../i18n/locales/${language}`)).default;
      const sentence = apiErrorSentence(tree, 'branding.contrastDescendant', params);
      expect(sentence, language).toContain('Shop');
      expect(sentence, language).toContain('3.44:1');
      expect(sentence, language).not.toContain('%{');
    }
    expect(apiErrorSentence((await import('../../i18n/locales/fr')).default, 'branding.contrastDescendant', params)).toBe(
      "Shop (shop), sous cette entreprise, définit elle-même l'une des deux couleurs : avec celles-ci, elle afficherait #767676 sur #e0e0e0, un rapport de contraste de 3.44:1 ; le niveau AA des WCAG demande au moins 4.5:1.",
    );
  });
});

describe("the console's theme with the company's colours", () => {
  it('takes the primary and background colours, with readable text on the primary', () => {
    const theme = createTheme(brandedTheme(lightTheme, '#ffeb3b', '#101010') as ThemeOptions);
    expect(theme.palette.primary.main).toBe('#ffeb3b');
    expect(theme.palette.primary.contrastText).toBe('rgba(0, 0, 0, 0.87)');
    expect(theme.palette.primary.dark).not.toBe((lightTheme.palette as { primary: { dark?: string } }).primary.dark ?? '#1565c0');
    expect(theme.palette.secondary.main).toBe('#ffeb3b');
    expect(theme.palette.secondary.contrastText).toBe('rgba(0, 0, 0, 0.87)');
    expect(theme.palette.background.default).toBe('#101010');
    expect(createTheme(brandedTheme(lightTheme, '#0b5394', undefined) as ThemeOptions).palette.primary.contrastText).toBe('#fff');
    // the console's own theme is left as it was
    expect((lightTheme.palette as { primary: { contrastText?: string } }).primary.contrastText).toBe('#fff');
    // nothing usable: the theme as it was
    expect(brandedTheme(lightTheme, 'red', undefined)).toBe(lightTheme);
  });
});
