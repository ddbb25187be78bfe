import { useState } from 'react';
import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  TextField,
} from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { useTranslate } from 'react-admin';

interface SecretDialogProps {
  /** Translation key naming the secret (client secret, signing secret). */
  labelKey: string;
  secret?: string;
  onClose: () => void;
}

/** Shows a newly created secret once, with a copy button: the provider stores only its hash. */
export function SecretDialog({ labelKey, secret, onClose }: SecretDialogProps) {
  const translate = useTranslate();
  const [copied, setCopied] = useState<boolean>();
  const label = translate(labelKey);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret ?? '');
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };

  return (
    <Dialog open={secret !== undefined} onClose={onClose} aria-labelledby="secret-dialog-title" fullWidth maxWidth="sm">
      <DialogTitle id="secret-dialog-title">{translate('iam.secret.title', { label })}</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>{translate('iam.secret.once', { label })}</DialogContentText>
        <TextField
          label={label}
          value={secret ?? ''}
          fullWidth
          slotProps={{ htmlInput: { readOnly: true, style: { fontFamily: 'monospace' } } }}
          onFocus={(event) => event.target.select()}
        />
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
      </DialogContent>
      <DialogActions>
        <Button startIcon={<ContentCopyIcon />} onClick={copy}>
          {translate('iam.secret.copy')}
        </Button>
        <Button variant="contained" onClick={onClose}>
          {translate('iam.actions.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
