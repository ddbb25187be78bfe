import { Button, CircularProgress, Stack } from '@mui/material';
import { useTranslate } from 'react-admin';
import type { FormMode } from './formMode';

/**
 * The form buttons (docs/CONSOLE.md, "Resources"): Edit and Close in view mode; Create or Save, and
 * Cancel, otherwise. Without onEdit (a read-only type) view mode has Close alone.
 */
export function FormModeButtons(props: { mode: FormMode; saving: boolean; onEdit?: () => void; onBack: () => void; marginTop?: number }) {
  const { mode, saving, onEdit, onBack, marginTop = 1 } = props;
  const translate = useTranslate();
  return (
    <Stack direction="row" spacing={1} sx={{ mt: marginTop }}>
      {mode === 'view' ? (
        <>
          {onEdit && (
            <Button variant="contained" onClick={onEdit}>
              {translate('iam.actions.edit')}
            </Button>
          )}
          <Button onClick={onBack}>{translate('iam.actions.close')}</Button>
        </>
      ) : (
        <>
          <Button
            type="submit"
            variant="contained"
            disabled={saving}
            startIcon={saving ? <CircularProgress size={16} color="inherit" /> : undefined}
          >
            {translate(mode === 'new' ? 'iam.actions.create' : 'iam.actions.save')}
          </Button>
          <Button onClick={onBack}>{translate('iam.actions.cancel')}</Button>
        </>
      )}
    </Stack>
  );
}
