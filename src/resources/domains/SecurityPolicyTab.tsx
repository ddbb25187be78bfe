import { useEffect, useState, type FormEvent } from 'react';
import { Alert, Box, Button, FormControl, FormControlLabel, FormHelperText, FormLabel, LinearProgress, Radio, RadioGroup, Stack, Switch, TextField, Typography } from '@mui/material';
import { useNotify, useTranslate } from 'react-admin';
import { useQueryClient } from '@tanstack/react-query';
import type { PathContext } from '../../session/session';
import { DisabledReason } from '../generic/DisabledReason';
import { useAllowed } from '../generic/useAllowed';
import { DEFAULT_POLICY, type DomainPolicy, MFA_POLICIES, POLICY_BOUNDS, policyKey, savePolicy, useDomainPolicy } from '../users/passwordPolicy';

/** The numbers as typed: text, so that a half-typed value and an empty one (the server's setting) stay as they are. */
interface Draft {
  minPasswordLength: string;
  refuseCommonPasswords: boolean;
  mfa: DomainPolicy['mfa'];
  failuresPerAccount: string;
  failureWindowSeconds: string;
  selfSignUp: boolean;
}
type NumberField = 'minPasswordLength' | 'failuresPerAccount' | 'failureWindowSeconds';

const draftOf = (policy: DomainPolicy): Draft => ({
  ...policy,
  minPasswordLength: String(policy.minPasswordLength),
  failuresPerAccount: policy.failuresPerAccount === null ? '' : String(policy.failuresPerAccount),
  failureWindowSeconds: policy.failureWindowSeconds === null ? '' : String(policy.failureWindowSeconds),
});

/** A whole number within the field's bounds; empty is the server's setting where the field allows it. */
function parse(field: NumberField, text: string): { value: number | null } | { error: true } {
  const trimmed = text.trim();
  if (trimmed === '' && field !== 'minPasswordLength') return { value: null };
  const { min, max } = POLICY_BOUNDS[field];
  if (!/^\d+$/.test(trimmed) || Number(trimmed) < min || Number(trimmed) > max) return { error: true };
  return { value: Number(trimmed) };
}

/**
 * The domain screen's Security tab (docs/CONSOLE.md, "Domain security policy"): the domain's password
 * rules, second factor, sign-in limits and self sign-up, saved together. Those who may not change
 * the domain see the policy with its inputs disabled, and the roles that would allow it.
 */
export default function SecurityPolicyTab({ context, name }: { context: PathContext; name: string }) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const { data: policy, error: loadError, isPending } = useDomainPolicy(context);
  const { allowed, reason } = useAllowed('edit', 'domains');
  const [draft, setDraft] = useState<Draft>(draftOf(DEFAULT_POLICY));
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string>();

  useEffect(() => {
    if (policy) setDraft(draftOf(policy));
  }, [policy]);

  if (isPending) return <LinearProgress aria-label={translate('iam.list.loading')} />;
  if (loadError) return <Alert severity="error">{translate('iam.securityPolicy.loadFailed', { message: loadError.message })}</Alert>;

  const parsed = {
    minPasswordLength: parse('minPasswordLength', draft.minPasswordLength),
    failuresPerAccount: parse('failuresPerAccount', draft.failuresPerAccount),
    failureWindowSeconds: parse('failureWindowSeconds', draft.failureWindowSeconds),
  };
  const invalid = (field: NumberField) => touched && 'error' in parsed[field];
  const readOnly = !allowed || saving;
  const set = <K extends keyof Draft>(field: K, value: Draft[K]) => setDraft((before) => ({ ...before, [field]: value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    setFailure(undefined);
    if (Object.values(parsed).some((result) => 'error' in result)) return;
    const value = (field: NumberField) => (parsed[field] as { value: number | null }).value;
    setSaving(true);
    try {
      const saved = await savePolicy(context, {
        minPasswordLength: value('minPasswordLength')!,
        refuseCommonPasswords: draft.refuseCommonPasswords,
        mfa: draft.mfa,
        failuresPerAccount: value('failuresPerAccount'),
        failureWindowSeconds: value('failureWindowSeconds'),
        selfSignUp: draft.selfSignUp,
      });
      queryClient.setQueryData(policyKey(context), saved);
      setTouched(false);
      notify(translate('iam.securityPolicy.saved', { name }), { type: 'success' });
    } catch (error) {
      setFailure(translate('iam.securityPolicy.failed', { message: (error as Error).message }));
    } finally {
      setSaving(false);
    }
  };

  const numberInput = (field: NumberField, optional: boolean) => {
    const { min, max } = POLICY_BOUNDS[field];
    const help = invalid(field) ? translate('iam.securityPolicy.wholeNumber', { min, max }) : translate(`iam.securityPolicy.${field}Help`, { min, max });
    return (
      <TextField
        id={`security-${field}`}
        label={translate(`iam.securityPolicy.${field}`)}
        value={draft[field]}
        onChange={(event) => set(field, event.target.value)}
        onBlur={() => setTouched(true)}
        error={invalid(field)}
        helperText={help}
        required={!optional}
        disabled={readOnly}
        fullWidth
        slotProps={{ htmlInput: { inputMode: 'numeric', 'aria-invalid': invalid(field) || undefined } }}
      />
    );
  };

  return (
    <Box component="form" onSubmit={submit} noValidate aria-labelledby="security-policy-title">
      <Typography variant="h6" component="h2" id="security-policy-title" gutterBottom>
        {translate('iam.securityPolicy.title')}
      </Typography>
      <Typography variant="body2" sx={{ mb: 2 }}>
        {translate('iam.securityPolicy.intro')}
      </Typography>
      {failure && (
        <Alert severity="error" role="alert" sx={{ mb: 2 }}>
          {failure}
        </Alert>
      )}
      <Stack spacing={3}>
        <Box component="fieldset" sx={{ border: 0, p: 0, m: 0 }}>
          <Typography component="legend" variant="subtitle1" sx={{ fontWeight: 600, mb: 1 }}>
            {translate('iam.securityPolicy.passwords')}
          </Typography>
          <Stack spacing={1}>
            {numberInput('minPasswordLength', false)}
            <FormControl>
              <FormControlLabel
                control={
                  <Switch
                    checked={draft.refuseCommonPasswords}
                    onChange={(event) => set('refuseCommonPasswords', event.target.checked)}
                    disabled={readOnly}
                    slotProps={{ input: { 'aria-describedby': 'security-common-help' } }}
                  />
                }
                label={translate('iam.securityPolicy.refuseCommonPasswords')}
              />
              <FormHelperText id="security-common-help" sx={{ mt: 0 }}>
                {translate('iam.securityPolicy.refuseCommonPasswordsHelp')}
              </FormHelperText>
            </FormControl>
          </Stack>
        </Box>

        <FormControl component="fieldset" disabled={readOnly}>
          <FormLabel component="legend" id="security-mfa-label" sx={{ fontWeight: 600, mb: 1, color: 'text.primary', '&.Mui-focused': { color: 'text.primary' } }}>
            {translate('iam.securityPolicy.mfa')}
          </FormLabel>
          <RadioGroup aria-labelledby="security-mfa-label" aria-describedby="security-mfa-help" value={draft.mfa} onChange={(event) => set('mfa', event.target.value as DomainPolicy['mfa'])}>
            {MFA_POLICIES.map((option) => (
              <FormControlLabel key={option} value={option} control={<Radio />} label={translate(`iam.securityPolicy.mfaOptions.${option}`)} />
            ))}
          </RadioGroup>
          <FormHelperText id="security-mfa-help" sx={{ mx: 0 }}>
            {translate('iam.securityPolicy.mfaHelp')}
          </FormHelperText>
        </FormControl>

        <Box component="fieldset" sx={{ border: 0, p: 0, m: 0 }}>
          <Typography component="legend" variant="subtitle1" sx={{ fontWeight: 600, mb: 1 }}>
            {translate('iam.securityPolicy.throttle')}
          </Typography>
          <Stack spacing={2}>
            {numberInput('failuresPerAccount', true)}
            {numberInput('failureWindowSeconds', true)}
          </Stack>
        </Box>

        <FormControl>
          <FormControlLabel
            control={
              <Switch
                checked={draft.selfSignUp}
                onChange={(event) => set('selfSignUp', event.target.checked)}
                disabled={readOnly}
                slotProps={{ input: { 'aria-describedby': 'security-signup-help' } }}
              />
            }
            label={translate('iam.securityPolicy.selfSignUp')}
          />
          <FormHelperText id="security-signup-help" sx={{ mt: 0 }}>
            {translate('iam.securityPolicy.selfSignUpHelp')}
          </FormHelperText>
        </FormControl>

        <Box>
          <DisabledReason reason={reason}>
            <Button type="submit" variant="contained" disabled={readOnly}>
              {translate('iam.securityPolicy.save')}
            </Button>
          </DisabledReason>
        </Box>
      </Stack>
    </Box>
  );
}
