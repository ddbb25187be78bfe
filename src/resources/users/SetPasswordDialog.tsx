import { useState } from 'react';
import { Alert, Button, Checkbox, CircularProgress, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, FormControlLabel } from '@mui/material';
import { Form, useNotify, useTranslate } from 'react-admin';
import type { PathContext } from '../../session/session';
import { hashPassword } from './password';
import { NewPasswordInputs } from './NewPasswordInputs';
import { checkPassword, useDomainPolicy } from './passwordPolicy';

interface SetPasswordDialogProps {
  name: string;
  /** The user's company and domain: the password is checked against its security policy (docs/CONSOLE.md, "Domain security policy"). */
  context: PathContext;
  onClose: () => void;
  /** Sends the hash; rejects with the provider's refusal. */
  onSet: (authVerification: string, requireChange: boolean) => Promise<unknown>;
}

/**
 * Set password (docs/CONSOLE.md, "Account states"): the user form's Password and Confirm Password,
 * checked as there, hashed here with bcrypt; only the hash leaves the browser. "Require a new
 * password at next sign-in" makes the provider add the change-password required action.
 */
export function SetPasswordDialog({ name, context, onClose, onSet }: SetPasswordDialogProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const [requireChange, setRequireChange] = useState(true);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  const { data: policy } = useDomainPolicy(context);

  const submit = async (values: Record<string, unknown>) => {
    setError(undefined);
    // the provider only sees the hash: the domain's password rules are checked here
    const problem = await checkPassword(policy, String(values.password));
    if (problem) return { password: problem };
    setSaving(true);
    try {
      await onSet(await hashPassword(String(values.password)), requireChange);
      notify(requireChange ? 'iam.accountState.passwordSetRequire' : 'iam.accountState.passwordSet', { type: 'info', messageArgs: { name } });
      onClose();
    } catch (failure) {
      setError((failure as Error).message || translate('ra.notification.http_error'));
      setSaving(false);
    }
  };

  return (
    <Dialog open onClose={() => !saving && onClose()} aria-labelledby="set-password-title" fullWidth maxWidth="sm">
      <Form onSubmit={submit} noValidate>
        <DialogTitle id="set-password-title">{translate('iam.accountState.setPasswordTitle', { name })}</DialogTitle>
        <DialogContent>
          <DialogContentText sx={{ mb: 2 }}>{translate('iam.accountState.setPasswordHelp', { name })}</DialogContentText>
          <NewPasswordInputs policy={policy} />
          <FormControlLabel
            control={<Checkbox checked={requireChange} onChange={(event) => setRequireChange(event.target.checked)} />}
            label={translate('iam.accountState.requireChange')}
          />
          {error && (
            <Alert severity="error" role="alert" sx={{ mt: 2 }}>
              {translate('iam.accountState.failed', { message: error })}
            </Alert>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={saving}>
            {translate('iam.actions.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={saving} startIcon={saving ? <CircularProgress size={16} color="inherit" /> : undefined}>
            {translate('iam.accountState.setPassword')}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
