import { useState } from 'react';
import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  FormControl,
  FormControlLabel,
  FormLabel,
  Radio,
  RadioGroup,
} from '@mui/material';
import AutorenewIcon from '@mui/icons-material/Autorenew';
import { useLocaleState, useLogoutIfAccessDenied, useTranslate } from 'react-admin';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import { DisabledReason } from '../generic/DisabledReason';
import { useAllowed } from '../generic/useAllowed';
import { CopyableSecret, CopySecretButton, useSecretCopy } from '../generic/CopyableSecret';

/** How long the old secret keeps working after a rotation (the provider allows 0 to 30 days). */
export const GRACE_PERIODS = { none: 0, hour: 3600, day: 86400, week: 7 * 86400 } as const;
export type GracePeriod = keyof typeof GRACE_PERIODS;

export interface RotatedSecret {
  client_id: string;
  client_secret: string;
  /** ISO time until which the previous secret works; null: it stopped at once. */
  previousSecretExpiresAt: string | null;
}

interface RotateSecretButtonProps {
  application: { id: string | number; client_name?: unknown };
  disabled?: boolean;
  /** Why rotation is not offered (a soft-deleted application): shown as the disabled button's tooltip. */
  disabledReason?: string;
  onRotated?: (result: RotatedSecret) => void;
}

type Step = 'closed' | 'choose' | 'shown';

/**
 * Secret rotation (issue 6): the administrator chooses how long the current client secret keeps
 * working, confirms, and sees the new secret once (the provider keeps only its hash) with the time
 * the old one stops. Closing the dialog forgets the secret.
 */
export function RotateSecretButton({ application, disabled, disabledReason, onRotated }: RotateSecretButtonProps) {
  const translate = useTranslate();
  const [locale] = useLocaleState();
  const logoutIfAccessDenied = useLogoutIfAccessDenied();
  const [step, setStep] = useState<Step>('closed');
  const [grace, setGrace] = useState<GracePeriod>('hour');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  const [result, setResult] = useState<RotatedSecret>();
  const { copied, copy, reset: resetCopied } = useSecretCopy();
  const name = String(application.client_name ?? application.id);
  const rotating = useAllowed('secrets', 'applications');
  const why = rotating.reason ?? disabledReason;

  const open = () => {
    setGrace('hour');
    setError(undefined);
    setStep('choose');
  };

  const close = () => {
    setStep('closed');
    setResult(undefined);
    resetCopied();
  };

  const rotate = async () => {
    setSaving(true);
    setError(undefined);
    try {
      const { json } = await httpClient(`${config.apiBase}/application/${encodeURIComponent(String(application.id))}/secret`, {
        method: 'POST',
        body: JSON.stringify({ graceSeconds: GRACE_PERIODS[grace] }),
      });
      setResult(json as RotatedSecret);
      resetCopied();
      setStep('shown');
      onRotated?.(json as RotatedSecret);
    } catch (failure) {
      if (await logoutIfAccessDenied(failure)) return;
      setError((failure as Error)?.message || translate('ra.notification.http_error'));
    } finally {
      setSaving(false);
    }
  };

  const expires = result?.previousSecretExpiresAt;

  return (
    <>
      <DisabledReason reason={why}>
        <Button startIcon={<AutorenewIcon />} disabled={disabled || !rotating.allowed || Boolean(why)} onClick={open}>
          {translate('iam.rotateSecret.button')}
        </Button>
      </DisabledReason>
      <Dialog
        open={step !== 'closed'}
        // The secret is shown once: only an explicit Close leaves that step, not a stray click outside.
        onClose={(_event, reason) => {
          if (step === 'shown' && reason === 'backdropClick') return;
          if (!saving) close();
        }}
        aria-labelledby="rotate-secret-title"
        fullWidth
        maxWidth="sm"
      >
        <DialogTitle id="rotate-secret-title">
          {step === 'shown' ? translate('iam.rotateSecret.newSecret') : translate('iam.rotateSecret.title', { name })}
        </DialogTitle>
        {step === 'choose' && (
          <>
            <DialogContent>
              <DialogContentText sx={{ mb: 2 }}>{translate('iam.rotateSecret.explain')}</DialogContentText>
              <FormControl component="fieldset">
                <FormLabel component="legend" id="rotate-secret-grace">
                  {translate('iam.rotateSecret.grace')}
                </FormLabel>
                <RadioGroup
                  aria-labelledby="rotate-secret-grace"
                  value={grace}
                  onChange={(event) => setGrace(event.target.value as GracePeriod)}
                >
                  {(Object.keys(GRACE_PERIODS) as GracePeriod[]).map((value) => (
                    <FormControlLabel key={value} value={value} control={<Radio />} label={translate(`iam.rotateSecret.graces.${value}`)} />
                  ))}
                </RadioGroup>
              </FormControl>
              {error && (
                <Alert severity="error" role="alert" sx={{ mt: 2 }}>
                  {error}
                </Alert>
              )}
            </DialogContent>
            <DialogActions>
              <Button onClick={close} disabled={saving}>
                {translate('iam.rotateSecret.cancel')}
              </Button>
              <Button variant="contained" color="warning" onClick={rotate} disabled={saving}>
                {translate('iam.rotateSecret.confirm')}
              </Button>
            </DialogActions>
          </>
        )}
        {step === 'shown' && result && (
          <>
            <DialogContent>
              <DialogContentText sx={{ mb: 2 }}>{translate('iam.rotateSecret.once')}</DialogContentText>
              <CopyableSecret
                label={translate('iam.rotateSecret.newSecret')}
                secret={result.client_secret}
                copied={copied}
                note={
                  <Alert severity="info" sx={{ mt: 2 }}>
                    {expires
                      ? translate('iam.rotateSecret.oldStops', {
                          time: new Date(expires).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' }),
                        })
                      : translate('iam.rotateSecret.oldStopped')}
                  </Alert>
                }
              />
            </DialogContent>
            <DialogActions>
              <CopySecretButton onClick={() => copy(result.client_secret)} />
              <Button variant="contained" onClick={close}>
                {translate('iam.rotateSecret.close')}
              </Button>
            </DialogActions>
          </>
        )}
      </Dialog>
    </>
  );
}
