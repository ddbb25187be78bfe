import { Button, CircularProgress, Stack } from '@mui/material';
import { useTranslate } from 'react-admin';
import { DisabledReason } from './DisabledReason';
import type { FormMode } from './formMode';
import { useAllowedAll } from './useAllowed';

/**
 * The form buttons (docs/CONSOLE.md, "Resources"): Edit and Close in view mode; Create or Save, and
 * Cancel, otherwise. Without onEdit (a read-only type) view mode has Close alone. Edit, Create and
 * Save are disabled, saying which role would allow them, for those whose roles do not.
 */
export function FormModeButtons(props: { mode: FormMode; saving: boolean; onEdit?: () => void; onBack: () => void; marginTop?: number }) {
  const { mode, saving, onEdit, onBack, marginTop = 1 } = props;
  const translate = useTranslate();
  const writes = mode !== 'view' || Boolean(onEdit);
  const { allowed, reason } = useAllowedAll(writes ? [{ action: mode === 'new' ? 'create' : 'edit' }] : []);
  return (
    <Stack direction="row" spacing={1} sx={{ mt: marginTop }}>
      {mode === 'view' ? (
        <>
          {onEdit && (
            <DisabledReason reason={reason}>
              <Button variant="contained" disabled={!allowed} onClick={onEdit}>
                {translate('iam.actions.edit')}
              </Button>
            </DisabledReason>
          )}
          <Button onClick={onBack}>{translate('iam.actions.close')}</Button>
        </>
      ) : (
        <>
          <DisabledReason reason={reason}>
            <Button
              type="submit"
              variant="contained"
              disabled={saving || !allowed}
              startIcon={saving ? <CircularProgress size={16} color="inherit" /> : undefined}
            >
              {translate(mode === 'new' ? 'iam.actions.create' : 'iam.actions.save')}
            </Button>
          </DisabledReason>
          <Button onClick={onBack}>{translate('iam.actions.cancel')}</Button>
        </>
      )}
    </Stack>
  );
}
