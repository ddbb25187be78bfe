import QRCode from 'qrcode';
import { loginPagePolicy, renderPage } from '../oauth/loginPage.js';
import type { FactorView } from '../accounts/factors.js';

/** The HTML of the account page and of the MFA sign-in steps: the hosted pages' look, no inline script. */

export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** The scripts of WebAuthn pages: @simplewebauthn/browser's bundle and ours, same-origin files. */
export const SCRIPT_PATHS = { library: '/account/simplewebauthn-browser.js', ours: '/account/webauthn.js', page: '/account/page.js' };
/** Local times and the Copy button (server/mfa/page.js). */
const pageScript = () => `<script src="${SCRIPT_PATHS.page}" defer></script>`;
export const scriptTags = () => `<script src="${SCRIPT_PATHS.library}" defer></script>\n<script src="${SCRIPT_PATHS.ours}" defer></script>`;

/** The login pages' policy, with same-origin script files (never inline) for WebAuthn. */
export const accountPagePolicy = () => `${loginPagePolicy()}; script-src 'self'`;

export const errorBlock = (error: string | undefined, id = 'form-error') => (error ? `<p class="error" id="${id}" role="alert">${escapeHtml(error)}</p>\n` : '');

const hiddenFields = (fields: Record<string, string | undefined>) =>
  Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value!)}">`)
    .join('\n');

/**
 * The form of a second factor: a code (authenticator app or recovery code) and, when the person has a
 * key, a button that signs `options` with it (shown by the script only where WebAuthn works).
 */
export function secondFactorForm(input: { action: string; error?: string; webauthnOptions?: unknown; hidden?: Record<string, string | undefined> }): string {
  const describedBy = input.error ? ' aria-describedby="form-error" aria-invalid="true"' : '';
  const key = input.webauthnOptions
    ? `<form method="post" action="${escapeHtml(input.action)}">
${hiddenFields(input.hidden ?? {})}
<input type="hidden" name="webauthn" value="">
<button type="button" hidden data-webauthn="authenticate" data-options="${escapeHtml(JSON.stringify(input.webauthnOptions))}">Use a passkey or security key</button>
<p id="webauthn-status" role="status"></p>
</form>
<p>Or type a code:</p>\n`
    : '';
  return `${errorBlock(input.error)}${key}<form method="post" action="${escapeHtml(input.action)}">
${hiddenFields(input.hidden ?? {})}
<label for="code">Code from your authenticator app, or a recovery code</label>
<input type="text" id="code" name="code" inputmode="text" autocomplete="one-time-code" required autofocus maxlength="40"${describedBy}>
<button type="submit">Verify</button>
</form>
${input.webauthnOptions ? scriptTags() : ''}`;
}

/** An authenticator app's enrolment: QR code (SVG made here), the secret as text, and the code that confirms it. */
export async function totpEnrolForm(input: { action: string; uri: string; secret: string; error?: string; hidden?: Record<string, string | undefined>; withLabel?: boolean }): Promise<string> {
  const svg = (await QRCode.toString(input.uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' })).replace(
    '<svg ',
    '<svg role="img" aria-label="QR code of the authenticator app\'s key" width="200" height="200" ',
  );
  const describedBy = input.error ? ' aria-describedby="form-error" aria-invalid="true"' : '';
  const grouped = input.secret.match(/.{1,4}/g)!.join(' ');
  return `<p>Scan this code with your authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, FreeOTP…):</p>
<p>${svg}</p>
<p>Or type this key in the app: <code id="totp-secret">${escapeHtml(grouped)}</code></p>
${errorBlock(input.error)}<form method="post" action="${escapeHtml(input.action)}">
${hiddenFields(input.hidden ?? {})}
${input.withLabel ? '<label for="label">Name (optional)</label>\n<input type="text" id="label" name="label" maxlength="60" placeholder="Authenticator app">\n' : ''}<label for="code">Code shown by the app</label>
<input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" required maxlength="10"${describedBy}>
<button type="submit">Confirm</button>
</form>`;
}

const KIND: Record<string, string> = { totp: 'Authenticator app', webauthn: 'Passkey or security key', recovery: 'Recovery codes' };
// in UTC as written; page.js shows it in the person's own time zone
const day = (iso: string | null) => (iso ? `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.slice(0, 16).replace('T', ' '))} UTC</time>` : 'never');

/** The account page of a signed-in person. */
export function overviewPage(input: { name: string; organization: string; factors: FactorView[]; notice?: string; required?: boolean; fromConsole?: boolean }): string {
  const rows = input.factors
    .map(
      (f) => `<li><strong>${escapeHtml(KIND[f.type] ?? f.type)}</strong>: ${escapeHtml(f.label)}${f.remaining !== undefined ? ` (${f.remaining} unused)` : ''}<br>
<small>Added ${day(f.createdAt)}, last used ${day(f.lastUsedAt)}</small>
<form method="get" action="/account/factors/${encodeURIComponent(f.id)}/remove"><button type="submit" aria-label="Remove ${escapeHtml(KIND[f.type] ?? f.type)} ${escapeHtml(f.label)}">Remove</button></form></li>`,
    )
    .join('\n');
  const hasRecovery = input.factors.some((f) => f.type === 'recovery');
  return renderPage(
    'Account and security',
    `<h1>Account and security</h1>
<p>Signed in as <strong>${escapeHtml(input.name)}</strong> (${escapeHtml(input.organization)}).</p>
${input.fromConsole ? '<p>Opened from the console, with its sign-in: <a href="/dashboard">Back to the console</a>. Changing your second factors asks your password once.</p>\n' : ''}${input.notice ? `<p role="status"><strong>${escapeHtml(input.notice)}</strong></p>\n` : ''}<h2>Second factors</h2>
${rows ? `<ul>\n${rows}\n</ul>` : '<p>No second factor yet: your password alone signs you in.</p>'}
${input.required ? '<p class="error" role="status">Your organization requires a second factor: add an authenticator app or a passkey.</p>' : ''}
<h2>Add</h2>
<form method="get" action="/account/totp"><button type="submit">Add an authenticator app</button></form>
<form method="get" action="/account/passkey"><button type="submit">Add a passkey or security key</button></form>
<form method="post" action="/account/recovery"><button type="submit">${hasRecovery ? 'Make new recovery codes (the old ones stop working)' : 'Make recovery codes'}</button></form>
<h2>Done?</h2>
<p><a href="/dashboard">Go to the console</a> (administrators), or sign out of this page.</p>
<form method="post" action="/account/logout"><button type="submit">Sign out</button></form>
${pageScript()}`,
  );
}

export function recoveryCodesPage(codes: string[]): string {
  return renderPage(
    'Recovery codes',
    `<h1>Recovery codes</h1>
<p>Keep these codes somewhere safe: each signs you in once when you cannot use your authenticator app or key. They are shown only now.</p>
<ul id="recovery-codes">
${codes.map((code) => `<li><code>${escapeHtml(code)}</code></li>`).join('\n')}
</ul>
<p><button type="button" data-copy="recovery-codes" hidden>Copy the codes</button>
<a download="recovery-codes.txt" href="data:text/plain;charset=utf-8,${encodeURIComponent(`${codes.join('\n')}\n`)}">Download the codes (recovery-codes.txt)</a></p>
<p id="recovery-codes-status" role="status"></p>
<form method="get" action="/account"><button type="submit">Done</button></form>
${pageScript()}`,
  );
}

export function passkeyPage(input: { options: unknown; error?: string }): string {
  return renderPage(
    'Add a passkey or security key',
    `<h1>Add a passkey or security key</h1>
<p>Your browser asks you to create a passkey (on this device or a phone) or to touch your security key.</p>
${errorBlock(input.error)}<form method="post" action="/account/passkey">
<label for="label">Name (optional)</label>
<input type="text" id="label" name="label" maxlength="60" placeholder="Passkey">
<input type="hidden" name="webauthn" value="">
<button type="button" hidden data-webauthn="register" data-options="${escapeHtml(JSON.stringify(input.options))}">Create the passkey</button>
<p id="webauthn-status" role="status">This page needs JavaScript and a browser that supports passkeys.</p>
</form>
<form method="get" action="/account"><button type="submit">Cancel</button></form>
${scriptTags()}`,
  );
}

export function removePage(input: { factor: FactorView; error?: string }): string {
  const what = `${KIND[input.factor.type] ?? input.factor.type}: ${input.factor.label}`;
  const describedBy = input.error ? ' aria-describedby="form-error" aria-invalid="true"' : '';
  return renderPage(
    'Remove a factor',
    `<h1>Remove a factor</h1>
<p>Remove <strong>${escapeHtml(what)}</strong>? Type your password to confirm.</p>
${errorBlock(input.error)}<form method="post" action="/account/factors/${encodeURIComponent(input.factor.id)}/remove">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required autofocus${describedBy}>
<button type="submit">Remove</button>
</form>
<form method="get" action="/account"><button type="submit">Cancel</button></form>`,
  );
}

