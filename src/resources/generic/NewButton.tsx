import { Button } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import { useTranslate } from 'react-admin';
import { DisabledReason } from './DisabledReason';
import { useAllowed } from './useAllowed';

interface NewButtonProps {
  onClick: () => void;
  /** Why a new record is not offered here besides the roles (a customer company has no child companies). */
  disabledReason?: string;
  variant?: 'text' | 'contained';
}

/** A list's New: disabled, saying which role would allow it, for those whose roles do not let them create here. */
export function NewButton({ onClick, disabledReason, variant }: NewButtonProps) {
  const translate = useTranslate();
  const { allowed, reason } = useAllowed('create');
  const why = reason ?? disabledReason;
  return (
    <DisabledReason reason={why}>
      <Button variant={variant} startIcon={<AddIcon />} disabled={!allowed || Boolean(why)} onClick={onClick}>
        {translate('iam.actions.new')}
      </Button>
    </DisabledReason>
  );
}
