import QRCode from 'qrcode';
import { loginPagePolicy, renderPage } from '../oauth/loginPage.js';
import type { FactorView } from '../accounts/factors.js';
import { t, th, translateSentence } from '../i18n/index.js';

/** The HTML of the account page and of the MFA sign-in steps: the hosted pages' look, no inline script. */

export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** The scripts of WebAuthn pages: @simplewebauthn/browser's bundle and ours, same-origin files. */
export const SCRIPT_PATHS = { library: '/account/simplewebauthn-browser.js', ours: '/account/webauthn.js', page: '/account/page.js' };
/** Local times and the Copy button (server/mfa/page.js). */
const pageScript = () => `<script src="${SCRIPT_PATHS.page}" defer></script>`;
export const scriptTags = () => `<script src="${SCRIPT_PATHS.library}" defer></script>\n<script src="${SCRIPT_PATHS.ours}" defer></script>`;

/** The login pages' policy (with the hashes of this answer's style elements: the company's colours), and same-origin script files. */
export const accountPagePolicy = (html?: string) => `${loginPagePolicy(undefined, { html })}; script-src 'self'`;

/** The words webauthn.js and page.js show, in the page's language (the scripts keep English when a page has none). */
export const scriptWords = (...keys: ('script.unsupported' | 'script.followRegister' | 'script.followUse' | 'script.failed' | 'script.cancelled' | 'script.copied' | 'script.copyFailed')[]) =>
  keys.map((key) => ` data-${key.slice('script.'.length).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}="${th(key)}"`).join('');
export const WEBAUTHN_WORDS = ['script.unsupported', 'script.followRegister', 'script.followUse', 'script.failed', 'script.cancelled'] as const;

export const errorBlock = (error: string | undefined, id = 'form-error') => (error ? `<p class="error" id="${id}" role="alert">${escapeHtml(translateSentence(error))}</p>\n` : '');

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
<button type="button" hidden data-webauthn="authenticate" data-options="${escapeHtml(JSON.stringify(input.webauthnOptions))}">${th('mfa.useKey')}</button>
<p id="webauthn-status" role="status"${scriptWords(...WEBAUTHN_WORDS)}></p>
</form>
<p>${th('mfa.orCode')}</p>\n`
    : '';
  return `${errorBlock(input.error)}${key}<form method="post" action="${escapeHtml(input.action)}">
${hiddenFields(input.hidden ?? {})}
<label for="code">${th('mfa.codeLabel')}</label>
<input type="text" id="code" name="code" inputmode="text" autocomplete="one-time-code" required autofocus maxlength="40"${describedBy}>
<button type="submit">${th('mfa.verify')}</button>
</form>
${input.webauthnOptions ? scriptTags() : ''}`;
}

/** An authenticator app's enrolment: QR code (SVG made here), the secret as text, and the code that confirms it. */
export async function totpEnrolForm(input: { action: string; uri: string; secret: string; error?: string; hidden?: Record<string, string | undefined>; withLabel?: boolean }): Promise<string> {
  const svg = (await QRCode.toString(input.uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' })).replace(
    '<svg ',
    `<svg role="img" aria-label="${th('mfa.qrLabel')}" width="200" height="200" `,
  );
  const describedBy = input.error ? ' aria-describedby="form-error" aria-invalid="true"' : '';
  const grouped = input.secret.match(/.{1,4}/g)!.join(' ');
  return `<p>${th('mfa.scan')}</p>
<p>${svg}</p>
<p>${th('mfa.typeKey', { key: `<code id="totp-secret">${escapeHtml(grouped)}</code>` })}</p>
${errorBlock(input.error)}<form method="post" action="${escapeHtml(input.action)}">
${hiddenFields(input.hidden ?? {})}
${input.withLabel ? `<label for="label">${th('mfa.nameOptional')}</label>\n<input type="text" id="label" name="label" maxlength="60" placeholder="${th('mfa.appPlaceholder')}">\n` : ''}<label for="code">${th('mfa.appCode')}</label>
<input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" required maxlength="10"${describedBy}>
<button type="submit">${th('mfa.confirm')}</button>
</form>`;
}

const KINDS = { totp: 'mfa.kindTotp', webauthn: 'mfa.kindWebauthn', recovery: 'mfa.kindRecovery' } as const;
const kindOf = (type: string) => (type in KINDS ? t(KINDS[type as keyof typeof KINDS]) : type);
// in UTC as written; page.js shows it in the person's own time zone
const day = (iso: string | null) => (iso ? `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.slice(0, 16).replace('T', ' '))} UTC</time>` : th('mfa.never'));

/** The account page of a signed-in person. */
export function overviewPage(input: { name: string; organization: string; factors: FactorView[]; notice?: string; required?: boolean; fromConsole?: boolean }): string {
  const rows = input.factors
    .map(
      (f) => `<li><strong>${escapeHtml(kindOf(f.type))}</strong>: ${escapeHtml(f.label)}${f.remaining !== undefined ? ` ${escapeHtml(t('mfa.unused', { n: f.remaining }))}` : ''}<br>
<small>${th('mfa.added', { created: day(f.createdAt), used: day(f.lastUsedAt) })}</small>
<form method="get" action="/account/factors/${encodeURIComponent(f.id)}/remove"><button type="submit" aria-label="${escapeHtml(t('mfa.removeLabel', { what: `${kindOf(f.type)} ${f.label}` }))}">${th('mfa.remove')}</button></form></li>`,
    )
    .join('\n');
  const hasRecovery = input.factors.some((f) => f.type === 'recovery');
  return renderPage(
    t('mfa.accountTitle'),
    `<h1>${th('mfa.accountTitle')}</h1>
<p>${th('mfa.signedInAs', { name: `<strong>${escapeHtml(input.name)}</strong>`, organization: escapeHtml(input.organization) })}</p>
${input.fromConsole ? `<p>${th('mfa.fromConsole', { link: `<a href="/dashboard">${th('mfa.backToConsole')}</a>` })}</p>\n` : ''}${input.notice ? `<p role="status"><strong>${escapeHtml(translateSentence(input.notice))}</strong></p>\n` : ''}<h2>${th('mfa.factors')}</h2>
${rows ? `<ul>\n${rows}\n</ul>` : `<p>${th('mfa.none')}</p>`}
${input.required ? `<p class="error" role="status">${th('mfa.required')}</p>` : ''}
<h2>${th('mfa.add')}</h2>
<form method="get" action="/account/totp"><button type="submit">${th('mfa.addApp')}</button></form>
<form method="get" action="/account/passkey"><button type="submit">${th('mfa.addKey')}</button></form>
<form method="post" action="/account/recovery"><button type="submit">${th(hasRecovery ? 'mfa.newCodes' : 'mfa.makeCodes')}</button></form>
<h2>${th('mfa.done')}</h2>
<p>${th('mfa.goConsole', { link: `<a href="/dashboard">${th('mfa.goConsoleLink')}</a>` })}</p>
<form method="post" action="/account/logout"><button type="submit">${th('mfa.signOut')}</button></form>
${pageScript()}`,
  );
}

export function recoveryCodesPage(codes: string[]): string {
  return renderPage(
    t('mfa.codesTitle'),
    `<h1>${th('mfa.codesTitle')}</h1>
<p>${th('mfa.codesIntro')}</p>
<ul id="recovery-codes">
${codes.map((code) => `<li><code>${escapeHtml(code)}</code></li>`).join('\n')}
</ul>
<p><button type="button" data-copy="recovery-codes" hidden>${th('mfa.copyCodes')}</button>
<a download="recovery-codes.txt" href="data:text/plain;charset=utf-8,${encodeURIComponent(`${codes.join('\n')}\n`)}">${th('mfa.downloadCodes')}</a></p>
<p id="recovery-codes-status" role="status"${scriptWords('script.copied', 'script.copyFailed')}></p>
<form method="get" action="/account"><button type="submit">${th('mfa.finished')}</button></form>
${pageScript()}`,
  );
}

export function passkeyPage(input: { options: unknown; error?: string }): string {
  return renderPage(
    t('mfa.addKey'),
    `<h1>${th('mfa.addKey')}</h1>
<p>${th('mfa.keyIntro')}</p>
${errorBlock(input.error)}<form method="post" action="/account/passkey">
<label for="label">${th('mfa.nameOptional')}</label>
<input type="text" id="label" name="label" maxlength="60" placeholder="${th('mfa.keyPlaceholder')}">
<input type="hidden" name="webauthn" value="">
<button type="button" hidden data-webauthn="register" data-options="${escapeHtml(JSON.stringify(input.options))}">${th('mfa.createKey')}</button>
<p id="webauthn-status" role="status"${scriptWords(...WEBAUTHN_WORDS)}>${th('mfa.needsScript')}</p>
</form>
<form method="get" action="/account"><button type="submit">${th('mfa.cancel')}</button></form>
${scriptTags()}`,
  );
}

export function removePage(input: { factor: FactorView; error?: string }): string {
  const what = `${kindOf(input.factor.type)}: ${input.factor.label}`;
  const describedBy = input.error ? ' aria-describedby="form-error" aria-invalid="true"' : '';
  return renderPage(
    t('mfa.removeTitle'),
    `<h1>${th('mfa.removeTitle')}</h1>
<p>${th('mfa.removeConfirm', { what: `<strong>${escapeHtml(what)}</strong>` })}</p>
${errorBlock(input.error)}<form method="post" action="/account/factors/${encodeURIComponent(input.factor.id)}/remove">
<label for="password">${th('login.password')}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required autofocus${describedBy}>
<button type="submit">${th('mfa.remove')}</button>
</form>
<form method="get" action="/account"><button type="submit">${th('mfa.cancel')}</button></form>`,
  );
}

