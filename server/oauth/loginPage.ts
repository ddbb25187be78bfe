import crypto from 'node:crypto';
import type { FastifyReply } from 'fastify';

const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
main { width: min(24rem, calc(100vw - 2rem)); padding: 2rem; border: 1px solid GrayText; border-radius: 8px; }
h1 { font-size: 1.4rem; margin: 0 0 1.5rem; }
label { display: block; margin: 1rem 0 0.25rem; font-weight: 600; }
input[type=text], input[type=email], input[type=password] { box-sizing: border-box; width: 100%; padding: 0.6rem; font-size: 1rem; }
button { margin-top: 1.5rem; width: 100%; padding: 0.7rem; font-size: 1rem; font-weight: 600; cursor: pointer; }
.error { padding: 0.75rem; border-left: 4px solid #c62828; background: rgba(198, 40, 40, 0.1); }
ul.connections { list-style: none; padding: 0; margin: 0; }
a.connection { display: block; margin-top: 0.75rem; padding: 0.7rem; border: 1px solid GrayText; border-radius: 4px; text-align: center; font-weight: 600; color: inherit; text-decoration: none; }
`;
const STYLE_HASH = `'sha256-${crypto.createHash('sha256').update(STYLE).digest('base64')}'`;

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
export function loginPagePolicy(redirectUri?: string, options: { scripts?: boolean } = {}): string {
  const formAction = ["'self'", ...(redirectUri ? [formTarget(redirectUri)] : [])].join(' ');
  return [
    "default-src 'none'",
    // a sign-in step may load our own script file (WebAuthn); never inline script
    ...(options.scripts ? ["script-src 'self'", "connect-src 'self'"] : []),
    `style-src ${STYLE_HASH}`,
    "img-src 'self' data:",
    `form-action ${formAction}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join('; ');
}

export function renderPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
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
  const error = input.error ? `<p class="error" id="login-error" role="alert">${escapeHtml(input.error)}</p>\n` : '';
  const describedBy = input.error ? ' aria-describedby="login-error" aria-invalid="true"' : '';
  const fields = Object.entries(input.hidden ?? {})
    .map(([name, value]) => hidden(name, value))
    .join('');
  return renderPage(
    `Sign in to ${input.clientName}`,
    `<h1>Sign in to ${escapeHtml(input.clientName)}</h1>
${input.organization ? `<p>Organization: <strong>${escapeHtml(input.organization)}</strong></p>\n` : ''}${error}<form method="post" action="${escapeHtml(input.action)}">
${fields}<label for="email">Email or username</label>
<input type="text" id="email" name="email" autocomplete="username" required autofocus value="${escapeHtml(input.email ?? '')}"${describedBy}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password"${input.passwordOptional ? '' : ' required'}${describedBy}>
${input.passwordOptional ? '<p>Your organization signs you in elsewhere? Leave the password empty.</p>\n' : ''}<button type="submit">Sign in</button>
</form>
${connectionButtons(input.connections)}<p><a href="${escapeHtml(forgotHref(input))}">Forgot your password?</a></p>${input.signUpUrl ? `\n<p>No account yet? <a href="${escapeHtml(input.signUpUrl)}">Create an account</a></p>` : ''}`,
  );
}

/** The other ways to sign in: one link styled as a button per connection. */
function connectionButtons(connections: { name: string; href: string }[] | undefined): string {
  if (!connections?.length) return '';
  const links = connections.map((one) => `<li><a class="connection" href="${escapeHtml(one.href)}">Sign in with ${escapeHtml(one.name)}</a></li>`).join('\n');
  return `<nav aria-label="Other ways to sign in">\n<p>Or</p>\n<ul class="connections">\n${links}\n</ul>\n</nav>\n`;
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
  return renderPage('Sign-in error', `<h1>Sign-in error</h1>\n<p class="error" role="alert">${escapeHtml(message)}</p>`);
}

/** Sends an HTML page of the authorization server: never cached, with the login page policy. */
export function sendPage(reply: FastifyReply, status: number, html: string, redirectUri?: string, options: { scripts?: boolean } = {}) {
  return reply
    .status(status)
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Cache-Control', 'no-store')
    .header('Content-Security-Policy', loginPagePolicy(redirectUri, options))
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
    : '<p>No specific permission: only to know who you are.</p>';
  return renderPage(
    `Authorize ${input.clientName}`,
    `<h1>Authorize ${escapeHtml(input.clientName)}</h1>
<p>Signed in as ${escapeHtml(input.userName)}. <strong>${escapeHtml(input.clientName)}</strong> asks to access <strong>${escapeHtml(input.apiName)}</strong> on your behalf:</p>
${items}
<form method="post" action="${escapeHtml(input.action)}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function renderMessagePage(title: string, message: string): string {
  return renderPage(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);
}
