import { recordOwnAction } from '../accounts/audit.js';
import { requiredActionDone } from '../accounts/requiredActions.js';
import type { Queryable } from '../db/index.js';
import { sha256 } from '../ids.js';
import { holdsConsoleRole } from '../accounts/accounts.js';
import { renderPage } from '../oauth/loginPage.js';
import { registerStep, type SignInStep, type StepInput } from '../oauth/signInSteps.js';
import { policyOf } from '../policies.js';
import {
  addTotp,
  addWebauthn,
  registrationOptions,
  authenticationOptions,
  challengeOf,
  decryptSecret,
  encryptSecret,
  factorsLocked,
  hasSecondFactor,
  LOCKED_MESSAGE,
  newTotpSecret,
  proveFactor,
  relyingParty,
  saveChallenge,
  takeChallenge,
  TOTP_UNAVAILABLE,
  totpAvailable,
  totpStep,
  totpUri,
  type UserRef,
} from '../accounts/factors.js';
import { knowPage, t, th, translateSentence } from '../i18n/index.js';
import { escapeHtml, scriptTags, scriptWords, secondFactorForm, totpEnrolForm, WEBAUTHN_WORDS } from './pages.js';

/**
 * The sign-in steps of MFA (docs/CONSOLE.md, "Multi-factor authentication and the account page"),
 * on the console's sign-in and the hosted page alike (server/oauth/signInSteps.ts counts wrong
 * answers: five end the sign-in, recorded as second_factor_failed):
 * - second-factor: a person with an authenticator app or a key proves one (or uses a recovery code);
 * - enrol-mfa: a person who must have a second factor (her required action 'enrol-mfa', or her
 *   domain's policy: required, or required of those who hold a console role) and has none adds an
 *   authenticator app before she gets in.
 */

const ref = (input: StepInput): UserRef => ({ companyId: input.user.companyId, domainId: input.user.domainId, id: input.user.id });
const rpOf = (input: StepInput) => relyingParty(input.request.server.ctx.config.publicUrl);
/**
 * The step page's language and branding (docs/CONSOLE.md, "Languages"): her stored language and her
 * domain's offered ones, her company's branding; the hosted sign-in's ui_locales stay as its route
 * found them (interactions.ts).
 */
const knowStep = (input: StepInput) => knowPage(input.db, { tenant: { companyId: input.user.companyId, domainId: input.user.domainId }, userId: input.user.id });

export const secondFactorStep: SignInStep = {
  id: 'second-factor',
  order: 10,
  async needed(input) {
    // a domain whose policy is 'off' asks no second factor at sign-in, even of people who enrolled one
    return !input.amr.includes('mfa') && (await hasSecondFactor(input.db, ref(input))) && (await policyOf(input.db, input.tenant)).mfa !== 'off';
  },
  async render(input) {
    await knowStep(input);
    const webauthnOptions = await authenticationOptions(input.db, rpOf(input), ref(input));
    if (webauthnOptions) await saveChallenge(input.db, ref(input), 'webauthn-sign-in', webauthnOptions.challenge, '1');
    return renderPage(
      t('mfa.secondFactorTitle'),
      `<h1>${th('mfa.secondFactorTitle')}</h1>\n<p>${th('mfa.signingInAs', { account: `<strong>${escapeHtml(input.user.email || input.user.username)}</strong>` })}</p>\n${secondFactorForm({
        action: input.action,
        error: input.error,
        webauthnOptions,
        hidden: { step: 'second-factor' },
      })}`,
    );
  },
  async submit(input) {
    // its refusals (and the page ending the sign-in after five) in her language
    await knowStep(input);
    if (await factorsLocked(input.db, ref(input))) return { error: LOCKED_MESSAGE };
    const { code, webauthn } = input.body;
    let challenge: string | undefined;
    if (webauthn) {
      // the challenge the browser signed must be one we gave this person, unused and unexpired
      const signed = challengeOf(webauthn);
      challenge = signed && (await takeChallenge(input.db, ref(input), 'webauthn-sign-in', signed)) !== undefined ? signed : undefined;
      if (!challenge) return { error: 'The passkey answer is out of date. Please try again.' };
    }
    const amr = await proveFactor(input.db, rpOf(input), ref(input), { code, webauthn: webauthn || undefined, challenge });
    if (amr) return { done: true, amr };
    // her answers of the hour may have run out with this one (proveFactor counts them over all her sign-ins)
    return { error: (await factorsLocked(input.db, ref(input))) ? LOCKED_MESSAGE : 'That code or key is not right. Try again.' };
  },
};

/** Is a second factor required of this person (her required action or her domain's policy)? */
export async function factorRequired(db: Queryable, user: UserRef & { requiredActions?: string[] }): Promise<boolean> {
  if (user.requiredActions?.includes('enrol-mfa')) return true;
  const { mfa } = await policyOf(db, user);
  if (mfa === 'required') return true;
  return mfa === 'required-admins' && (await holdsConsoleRole(db, user.companyId, user.domainId, user.id));
}

/** The authenticator app being enrolled at sign-in: one per person, kept 5 minutes so a wrong code does not change the QR code. */
const enrolmentKey = (user: UserRef) => `totp-enrol:${user.companyId}/${user.domainId}/${user.id}`;

async function pendingSecret(db: Queryable, user: UserRef): Promise<string> {
  const { rows } = await db.query<{ value: string }>(`SELECT value FROM mfa_challenges WHERE id = $1 AND purpose = 'totp-enrol' AND expires_at > now()`, [sha256(enrolmentKey(user))]);
  if (rows[0]) return decryptSecret(db, rows[0].value);
  const secret = newTotpSecret();
  await db.query(`DELETE FROM mfa_challenges WHERE id = $1`, [sha256(enrolmentKey(user))]);
  await saveChallenge(db, user, 'totp-enrol', enrolmentKey(user), await encryptSecret(db, secret));
  return secret;
}

export const enrolStep: SignInStep = {
  id: 'enrol-mfa',
  order: 30,
  async needed(input) {
    // on the account page only her required action asks it here: a factor her domain's policy asks is
    // added on the page itself, which says so (account.ts)
    if (input.kind === 'account' && !input.user.requiredActions.includes('enrol-mfa')) return false;
    // an upstream identity provider's MFA the connection trusts (mfaFromIdp) stands for the domain's
    // policy at this sign-in; her own required action still asks a factor of her here
    if (input.amr.includes('mfa') && !input.user.requiredActions.includes('enrol-mfa')) return false;
    return !(await hasSecondFactor(input.db, ref(input))) && (await factorRequired(input.db, { ...ref(input), requiredActions: input.user.requiredActions }));
  },
  async render(input) {
    await knowStep(input);
    const account = input.user.email || input.user.username;
    // no key for an app's secret (PostgreSQL without MFA_KEY): a passkey only
    const secret = totpAvailable(input.db) ? await pendingSecret(input.db, ref(input)) : undefined;
    const totpForm = secret
      ? await totpEnrolForm({ action: input.action, uri: totpUri(secret, `IAM ${input.user.companyId}`, account), secret, error: input.error, hidden: { step: 'enrol-mfa' } })
      : `<p class="error" role="alert">${escapeHtml(translateSentence(input.error ?? TOTP_UNAVAILABLE))}</p>`;
    // a passkey or security key instead: its challenge single use, as at sign-in
    const options = await registrationOptions(input.db, rpOf(input), input.user);
    await saveChallenge(input.db, ref(input), 'webauthn-sign-in', `register:${options.challenge}`, '1');
    return renderPage(
      t('mfa.enrolTitle'),
      `<h1>${th('mfa.enrolTitle')}</h1>
<p>${th('mfa.enrolIntro', { account: `<strong>${escapeHtml(account)}</strong>` })}</p>
${totpForm}
<form method="post" action="${escapeHtml(input.action)}">
<input type="hidden" name="step" value="enrol-mfa">
<input type="hidden" name="webauthn" value="">
<button type="button" hidden data-webauthn="register" data-options="${escapeHtml(JSON.stringify(options))}">${th('mfa.keyInstead')}</button>
<p id="webauthn-status" role="status"${scriptWords(...WEBAUTHN_WORDS)}></p>
</form>
${scriptTags()}`,
    );
  },
  async submit(input) {
    const user = ref(input);
    // the default labels in her language (the page's)
    await knowStep(input);
    if (input.body.webauthn) {
      const signed = challengeOf(input.body.webauthn);
      if (!signed || (await takeChallenge(input.db, user, 'webauthn-sign-in', `register:${signed}`)) === undefined) return { error: 'The passkey answer is out of date. Please try again.' };
      const added = await input.db.transaction(async (tx) => {
        const made = await addWebauthn(tx, rpOf(input), user, { response: input.body.webauthn!, challenge: signed, label: t('mfa.keyPlaceholder') });
        if ('id' in made) await recordOwnFactorChange(tx, user, { clientId: 'sign-in', ip: input.request.ip }, 'enrolFactor', { type: 'webauthn', label: t('mfa.keyPlaceholder') });
        return made;
      });
      if ('error' in added) return added;
      await enrolled(input.db, user);
      // a new key proves nothing yet (no attestation is asked): the second-factor step asks her to use it
      return { done: true };
    }
    const { rows } = await input.db.query<{ value: string }>(`SELECT value FROM mfa_challenges WHERE id = $1 AND purpose = 'totp-enrol' AND expires_at > now()`, [sha256(enrolmentKey(user))]);
    if (!rows[0]) return { error: 'This code was shown too long ago. Scan the new code and try again.' };
    const secret = await decryptSecret(input.db, rows[0].value);
    const step = totpStep(secret, input.body.code ?? '');
    if (step === undefined) return { error: 'That code is not right. Check the time of your device and type the code the app shows now.' };
    if ((await takeChallenge(input.db, user, 'totp-enrol', enrolmentKey(user))) === undefined) return { error: 'This enrolment was finished elsewhere. Please sign in again.' };
    // the app's key is sealed with the database's own key (factors.ts), outside a transaction's connection
    await addTotp(input.db, user, secret, step, t('mfa.kindTotp'));
    await input.db.transaction((tx) => recordOwnFactorChange(tx, user, { clientId: 'sign-in', ip: input.request.ip }, 'enrolFactor', { type: 'totp', label: t('mfa.kindTotp') }));
    await enrolled(input.db, user);
    // she typed a code of the app now bound to her account: this sign-in used it
    return { done: true, amr: ['otp', 'mfa'] };
  },
};

/** What a person does to her own second factors, on her history (docs/CONSOLE.md, "History and audit log"). */
export type OwnFactorAction = 'enrolFactor' | 'removeFactor' | 'newRecoveryCodes';

/**
 * Records a factor she enrolled or removed herself (the account page, or enrolment at sign-in) as her
 * own action, in the transaction that made the change: the factor's kind and label only, as a reset
 * of her factors names them (server/api/factors.ts), never a secret, code or key.
 */
export async function recordOwnFactorChange(
  tx: Queryable,
  user: UserRef,
  via: { clientId: string; ip: string },
  action: OwnFactorAction,
  factor: { type: string; label: string },
): Promise<void> {
  const named = `${factor.type}: ${factor.label}`;
  await recordOwnAction(tx, { companyId: user.companyId, domainId: user.domainId, userId: user.id }, via, action, { factor: action === 'removeFactor' ? { before: named, after: null } : { after: named } });
}

/** Her required action 'enrol-mfa' is done. */
const enrolled = (db: Queryable, user: UserRef) => requiredActionDone(db, { companyId: user.companyId, domainId: user.domainId, userId: user.id }, 'enrol-mfa');

/** Registers both steps (signInSteps.ts asks them by their order: a second factor first, enrolling one after a new password). */
export function registerMfaSteps(): void {
  registerStep(secondFactorStep);
  registerStep(enrolStep);
}
