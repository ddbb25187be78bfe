import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import { useTranslate } from 'react-admin';
import { CopyableSecret, CopySecretButton, useSecretCopy } from './CopyableSecret';

interface SecretDialogProps {
  /** Translation key naming the secret (client secret, signing secret). */
  labelKey: string;
  secret?: string;
  onClose: () => void;
}

/** Shows a newly created secret once, with a copy button: the provider stores only its hash. */
export function SecretDialog({ labelKey, secret, onClose }: SecretDialogProps) {
  const translate = useTranslate();
  const { copied, copy } = useSecretCopy();
  const label = translate(labelKey);

  return (
    <Dialog open={secret !== undefined} onClose={onClose} aria-labelledby="secret-dialog-title" fullWidth maxWidth="sm">
      <DialogTitle id="secret-dialog-title">{translate('iam.secret.title', { label })}</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>{translate('iam.secret.once', { label })}</DialogContentText>
        <CopyableSecret label={label} secret={secret ?? ''} copied={copied} />
      </DialogContent>
      <DialogActions>
        <CopySecretButton onClick={() => copy(secret ?? '')} />
        <Button variant="contained" onClick={onClose}>
          {translate('iam.actions.close')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
