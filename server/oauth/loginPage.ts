import crypto from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { EffectiveBranding } from '../branding/index.js';
import { isRtl, pageBranding, pageLanguage, t, th, translateSentence } from '../i18n/index.js';

const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
main { width: min(24rem, calc(100vw - 2rem)); padding: 2rem; border: 1px solid GrayText; border-radius: 8px; }
h1 { font-size: 1.4rem; margin: 0 0 1.5rem; }
label { display: block; margin: 1rem 0 0.25rem; font-weight: 600; }
input[type=text], input[type=email], input[type=password] { box-sizing: border-box; width: 100%; padding: 0.6rem; font-size: 1rem; }
button { margin-top: 1.5rem; width: 100%; padding: 0.7rem; font-size: 1rem; font-weight: 600; cursor: pointer; }
header.brand { display: flex; align-items: center; gap: 0.75rem; margin: 0 0 1rem; font-weight: 600; }
header.brand img { max-height: 48px; max-width: 12rem; }
img.app-logo { display: block; max-height: 64px; max-width: 12rem; margin: 0 0 1rem; }
footer.support { margin-top: 1.5rem; font-size: 0.9rem; }
.error { padding: 0.75rem; border-left: 4px solid #c62828; background: rgba(198, 40, 40, 0.1); }
ul.connections { list-style: none; padding: 0; margin: 0; }
a.connection { display: block; margin-top: 0.75rem; padding: 0.7rem; border: 1px solid GrayText; border-radius: 4px; text-align: center; font-weight: 600; color: inherit; text-decoration: none; }
`;
const hashOf = (style: string) => `'sha256-${crypto.createHash('sha256').update(style).digest('base64')}'`;
const STYLE_HASH = hashOf(STYLE);

/** A colour as the branding API stores it (#rgb or #rrggbb); anything else is left out of the page. */
const COLOUR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** Black or white, whichever reads better on `background` (WCAG relative luminance). */
function textOn(background: string): string {
  const hex = background.length === 4 ? [...background.slice(1)].map((c) => c + c).join('') : background.slice(1);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (luminance + 0.05) / 0.05 > 1.05 / (luminance + 0.05) ? '#000000' : '#ffffff';
}

/**
 * The company's colours (docs/CONSOLE.md, "Branding") as a second style element: light, and dark
 * under prefers-color-scheme. Only checked colours go in; its hash goes in the page's policy
 * (sendPage), so that no inline style is allowed but ours.
 */
function brandStyle(branding: EffectiveBranding | undefined): string {
  const scheme = (primary: string | undefined, background: string | undefined) => {
    const rules: string[] = [];
    if (background && COLOUR.test(background)) rules.push(`body { background: ${background}; color: ${textOn(background)}; }`);
    if (primary && COLOUR.test(primary)) {
      rules.push(`a, header.brand { color: ${primary}; }`, `button[type=submit], button[type=button] { background: ${primary}; color: ${textOn(primary)}; border: 1px solid ${primary}; border-radius: 4px; }`);
      rules.push(`main { border-color: ${primary}; }`);
    }
    return rules.join('\n');
  };
  const light = scheme(branding?.primaryLight, branding?.backgroundLight);
  const dark = scheme(branding?.primaryDark, branding?.backgroundDark);
  return [light && `@media (prefers-color-scheme: light) {\n${light}\n}`, dark && `@media (prefers-color-scheme: dark) {\n${dark}\n}`].filter(Boolean).join('\n');
}

/** The hashes of the style elements in a page's head (ours: nothing a person typed can open one, it is escaped). */
function styleHashes(html: string): string[] {
  const head = html.slice(0, html.indexOf('</head>') + 1);
  return [...head.matchAll(/<style>([^<]*)<\/style>/g)].map((match) => hashOf(match[1]));
}

export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** The source a form may be sent (and redirected) to; custom-scheme redirect URIs of native apps become `scheme:`. */
function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

/**
 * The policy of every login page and /oauth/login answer: no script at all, no framing (clickjacking),
 * and forms only to us and to the client's redirect URI (Chrome checks form-action on the redirect too).
 */
export function loginPagePolicy(redirectUri?: string, options: { scripts?: boolean; html?: string } = {}): string {
  const formAction = ["'self'", ...(redirectUri ? [formTarget(redirectUri)] : [])].join(' ');
  // the page's own style elements (its branding's colours differ per company): hashed per response
  const styles = options.html ? [...new Set([STYLE_HASH, ...styleHashes(options.html)])].join(' ') : STYLE_HASH;
  return [
    "default-src 'none'",
    // a sign-in step may load our own script file (WebAuthn); never inline script
    ...(options.scripts ? ["script-src 'self'", "connect-src 'self'"] : []),
    `style-src ${styles}`,
    // our own logos (/branding/…), the QR code (data:), and an application's own https logo
    "img-src 'self' data: https:",
    `form-action ${formAction}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ');
}

/**
 * The frame of every hosted page: in the language chosen for it (docs/CONSOLE.md, "Languages"; Arabic
 * right to left), with the company's branding (its logo and name, its colours, its support address
 * and link) and the application's own logo when the page is an application's.
 */
export function renderPage(title: string, body: string): string {
  const lang = pageLanguage();
  const { branding, appLogo } = pageBranding();
  const colours = brandStyle(branding);
  const name = branding?.displayName;
  const logo = branding?.logoUrl && /^\/[^/\\]/.test(branding.logoUrl) ? branding.logoUrl : undefined;
  const brand =
    logo || name
      ? `<header class="brand">${logo ? `<img src="${escapeHtml(logo)}" alt="${escapeHtml(name ?? '')}">` : ''}${name && !logo ? `<span>${escapeHtml(name)}</span>` : ''}</header>\n`
      : '';
  const support = supportFooter(branding);
  return `<!doctype html>
<html lang="${lang}" dir="${isRtl(lang) ? 'rtl' : 'ltr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="${escapeHtml(branding?.iconUrl && /^\/[^/\\]/.test(branding.iconUrl) ? branding.iconUrl : '/favicon.ico')}"${branding?.iconUrl ? '' : ' type="image/svg+xml"'}>
<title>${escapeHtml(name ? `${title} · ${name}` : title)}</title>
<style>${STYLE}</style>${colours ? `\n<style>${colours}</style>` : ''}
</head>
<body>
<main>
${brand}${appLogo ? `<img class="app-logo" src="${escapeHtml(appLogo)}" alt="">\n` : ''}${body}
${support}</main>
</body>
</html>`;
}

/** The company's support address and link, under the page. */
function supportFooter(branding: EffectiveBranding | undefined): string {
  const email = branding?.supportEmail && /^[^\s@<>"]+@[^\s@<>"]+$/.test(branding.supportEmail) ? branding.supportEmail : undefined;
  const url = branding?.supportUrl && /^https:\/\//i.test(branding.supportUrl) ? branding.supportUrl : undefined;
  if (!email && !url) return '';
  const parts = [
    // <bdi>: an address keeps its own direction inside a right-to-left sentence
    email ? `<a href="mailto:${escapeHtml(email)}">${th('page.supportEmail', { email: `<bdi>${escapeHtml(email)}</bdi>` })}</a>` : '',
    url ? `<a href="${escapeHtml(url)}" rel="noopener noreferrer">${escapeHtml(t('page.supportLink'))}</a>` : '',
  ].filter(Boolean);
  return `<footer class="support"><p>${escapeHtml(t('page.support'))} ${parts.join(' · ')}</p></footer>\n`;
}

function hidden(name: string, value: string | undefined): string {
  return value === undefined ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">\n`;
}

/** The sign-in form of an application: posts email (or username) and password to `action`, with `hidden` fields. */
export function renderLoginPage(input: {
  clientName: string;
  action: string;
  hidden?: Record<string, string | undefined>;
  email?: string;
  error?: string;
  /** The organization a sign-in link names (as named: nothing here says whether it exists). */
  organization?: string;
  /** The hosted sign-up page of the tenant, when its security policy offers sign-up (signUp.ts). */
  signUpUrl?: string;
  /** The domain's upstream identity providers (server/upstream/): a button each, a link to its start. */
  connections?: { name: string; href: string }[];
  /** The domain claims e-mail domains of an IdP: an address of one, without a password, signs in there (identifier-first). */
  passwordOptional?: boolean;
}): string {
  const error = input.error ? `<p class="error" id="login-error" role="alert">${escapeHtml(translateSentence(input.error))}</p>\n` : '';
  const describedBy = input.error ? ' aria-describedby="login-error" aria-invalid="true"' : '';
  const fields = Object.entries(input.hidden ?? {})
    .map(([name, value]) => hidden(name, value))
    .join('');
  return renderPage(
    t('login.title', { client: input.clientName }),
    `<h1>${escapeHtml(t('login.title', { client: input.clientName }))}</h1>
${input.organization ? `<p>${th('login.organization', { name: `<strong>${escapeHtml(input.organization)}</strong>` })}</p>\n` : ''}${error}<form method="post" action="${escapeHtml(input.action)}">
${fields}<label for="email">${th('login.email')}</label>
<input type="text" id="email" name="email" autocomplete="username" required autofocus value="${escapeHtml(input.email ?? '')}"${describedBy}>
<label for="password">${th('login.password')}</label>
<input type="password" id="password" name="password" autocomplete="current-password"${input.passwordOptional ? '' : ' required'}${describedBy}>
${input.passwordOptional ? `<p>${th('login.passwordOptional')}</p>\n` : ''}<button type="submit">${th('login.submit')}</button>
</form>
${connectionButtons(input.connections)}<p><a href="${escapeHtml(forgotHref(input))}">${th('login.forgot')}</a></p>${input.signUpUrl ? `\n<p>${th('login.noAccount', { link: `<a href="${escapeHtml(input.signUpUrl)}">${th('login.createAccount')}</a>` })}</p>` : ''}`,
  );
}

/** The other ways to sign in: one link styled as a button per connection. */
function connectionButtons(connections: { name: string; href: string }[] | undefined): string {
  if (!connections?.length) return '';
  const links = connections.map((one) => `<li><a class="connection" href="${escapeHtml(one.href)}">${escapeHtml(t('login.with', { name: one.name }))}</a></li>`).join('\n');
  return `<nav aria-label="${th('login.otherWays')}">\n<p>${th('login.or')}</p>\n<ul class="connections">\n${links}\n</ul>\n</nav>\n`;
}

/**
 * The forgotten-password page of this sign-in (server/oauth/accountPages.ts): the hosted page's
 * interaction names its application and organization; the console's form post carries them.
 */
function forgotHref(input: { action: string; hidden?: Record<string, string | undefined> }): string {
  const interaction = /^\/oauth\/interaction\/([^/]+)\/login$/.exec(input.action)?.[1];
  if (interaction) return `/account/forgot?interaction=${interaction}`;
  const query = new URLSearchParams();
  for (const name of ['client_id', 'company', 'domain']) if (input.hidden?.[name]) query.set(name, input.hidden[name]!);
  return `/account/forgot${query.size ? `?${query}` : ''}`;
}

export function renderErrorPage(message: string): string {
  return renderPage(t('error.title'), `<h1>${th('error.title')}</h1>\n<p class="error" role="alert">${escapeHtml(translateSentence(message))}</p>`);
}

/** Sends an HTML page of the authorization server: never cached, with the login page policy. */
export function sendPage(reply: FastifyReply, status: number, html: string, redirectUri?: string, options: { scripts?: boolean } = {}) {
  return reply
    .status(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .header('Content-Security-Policy', loginPagePolicy(redirectUri, { ...options, html }))
    .send(html);
}

/**
 * Asks the signed-in user whether the application may act for them on an API. The form posts to the
 * interaction (oidc-provider's, bound to this browser by its cookie): nothing in it is trusted.
 */
export function renderConsentPage(input: {
  clientName: string;
  apiName: string;
  userName: string;
  scopes: { name: string; description: string }[];
  action: string;
}): string {
  const items = input.scopes.length
    ? `<ul>\n${input.scopes.map((scope) => `<li><strong>${escapeHtml(scope.name)}</strong>${scope.description ? `: ${escapeHtml(scope.description)}` : ''}</li>`).join('\n')}\n</ul>`
    : `<p>${th('consent.nothing')}</p>`;
  return renderPage(
    t('consent.title', { client: input.clientName }),
    `<h1>${escapeHtml(t('consent.title', { client: input.clientName }))}</h1>
<p>${th('consent.asks', { user: escapeHtml(input.userName), client: `<strong>${escapeHtml(input.clientName)}</strong>`, api: `<strong>${escapeHtml(input.apiName)}</strong>` })}</p>
${items}
<form method="post" action="${escapeHtml(input.action)}">
<button type="submit" name="decision" value="allow">${th('consent.allow')}</button>
<button type="submit" name="decision" value="deny">${th('consent.deny')}</button>
</form>`,
  );
}

export function renderMessagePage(title: string, message: string): string {
  return renderPage(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);
}
