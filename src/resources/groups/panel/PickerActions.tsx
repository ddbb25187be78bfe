import { Button, DialogActions, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';

interface PickerActionsProps {
  /** Message key of the "n selected" line, given { count }. */
  selectedText: string;
  closeText: string;
  addText: string;
  count: number;
  busy: boolean;
  onClose: () => void;
  onAdd: () => void;
}

/** The add dialogs' footer: how many are selected, Close, and Add (only with a selection). */
export function PickerActions({ selectedText, closeText, addText, count, busy, onClose, onAdd }: PickerActionsProps) {
  const translate = useTranslate();
  return (
    <DialogActions>
      <Typography variant="body2" sx={{ mr: 'auto', ml: 2 }} aria-live="polite">
        {translate(selectedText, { count })}
      </Typography>
      <Button onClick={onClose}>{translate(closeText)}</Button>
      <Button variant="contained" disabled={count === 0 || busy} onClick={onAdd}>
        {translate(addText)}
      </Button>
    </DialogActions>
  );
}
