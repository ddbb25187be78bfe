import { setPassword } from '../accounts/passwords.js';
import { recordOwnAction } from '../accounts/audit.js';
import { verifyStoredPassword } from '../accounts/importedHashes.js';
import { hashPassword } from '../passwords.js';
import { passwordProblem, policyOf } from '../policies.js';
import { registerStep, stepForm } from './signInSteps.js';
import { t, th } from '../i18n/index.js';

/**
 * The required action "change password" (docs/CONSOLE.md, "Account states"): an administrator who
 * set a password may ask the person to choose her own at her next sign-in. The page takes the new
 * password twice, checks the domain's policy, hashes it on the password threads and ends every
 * other sign-in the old one made; her history records it as her own changePassword.
 */
registerStep({
  id: 'change-password',
  order: 20,
  needed: async ({ user }) => user.requiredActions.includes('change-password'),
  render: async ({ action, error }) =>
    stepForm({
      title: t('step.changeTitle'),
      intro: t('step.changeIntro'),
      action,
      step: 'change-password',
      error,
      fields: `<label for="password">${th('password.new')}</label>
<input type="password" id="password" name="password" autocomplete="new-password" required autofocus${error ? ' aria-describedby="step-error" aria-invalid="true"' : ''}>
<label for="confirm">${th('step.confirmPassword')}</label>
<input type="password" id="confirm" name="confirm" autocomplete="new-password" required>`,
      submit: t('step.changeSubmit'),
    }),
  submit: async ({ db, user, tenant, body, request, signInId }) => {
    const password = body.password ?? '';
    if (password !== (body.confirm ?? '')) return { error: 'The two passwords do not match.' };
    const problem = passwordProblem(await policyOf(db, tenant), password);
    if (problem) return { error: problem };
    if (user.passwordHash && (await verifyStoredPassword(password, user.passwordHash))) return { error: 'Choose a password different from the one you signed in with.' };
    const hash = await hashPassword(password);
    await db.transaction(async (tx) => {
      // her other sign-ins end; this one goes on to its next step
      await setPassword(tx, { ...tenant, userId: user.id }, { hash, keepStep: signInId });
      // on her history as her own change (the hash only said to have changed)
      const after = user.requiredActions.filter((name) => name !== 'change-password');
      await recordOwnAction(tx, { ...tenant, userId: user.id }, { clientId: 'sign-in', ip: request.ip }, 'changePassword', {
        password_hash: { hidden: true },
        required_actions: { before: user.requiredActions, after },
      });
    });
    return { done: true };
  },
});
