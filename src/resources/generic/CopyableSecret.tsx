import { useState, type ReactNode } from 'react';
import { Alert, Button, TextField } from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { useTranslate } from 'react-admin';

/** Copying a secret to the clipboard, and whether the browser allowed it (undefined: not tried yet). */
export function useSecretCopy() {
  const [copied, setCopied] = useState<boolean>();
  const copy = async (secret: string) => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return { copied, copy, reset: () => setCopied(undefined) };
}

/** A secret shown once: read-only, monospace, selected on focus, with what copying it did. */
export function CopyableSecret(props: { label: string; secret: string; copied?: boolean; note?: ReactNode }) {
  const { label, secret, copied, note } = props;
  const translate = useTranslate();
  return (
    <>
      <TextField
        label={label}
        value={secret}
        fullWidth
        slotProps={{ htmlInput: { readOnly: true, style: { fontFamily: 'monospace' } } }}
        onFocus={(event) => event.target.select()}
      />
      {note}
      {copied === true && (
        <Alert severity="success" sx={{ mt: 2 }} role="status">
          {translate('iam.secret.copied')}
        </Alert>
      )}
      {copied === false && (
        <Alert severity="warning" sx={{ mt: 2 }} role="status">
          {translate('iam.secret.copyFailed')}
        </Alert>
      )}
    </>
  );
}

export function CopySecretButton({ onClick }: { onClick: () => void }) {
  const translate = useTranslate();
  return (
    <Button startIcon={<ContentCopyIcon />} onClick={onClick}>
      {translate('iam.secret.copy')}
    </Button>
  );
}
