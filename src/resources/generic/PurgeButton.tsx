import { useState } from 'react';
import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  TextField,
} from '@mui/material';
import { useListContext, useTranslate } from 'react-admin';
import type { IamMeta } from '../../dataProvider';
import { PurgeSelectionButton, usePurgeSelection } from './DeleteSelectedButton';

/**
 * What the administrator types to confirm a purge: the name of a single selected record shown on
 * this page, otherwise the number of selected records.
 */
export function purgeConfirmation(
  selectedIds: readonly unknown[],
  rows: readonly Record<string, unknown>[] | undefined,
  nameField: string,
): { expected: string; byName: boolean } {
  if (selectedIds.length === 1) {
    const name = rows?.find((row) => row.id === selectedIds[0])?.[nameField];
    if (typeof name === 'string' && name) return { expected: name, byName: true };
  }
  return { expected: String(selectedIds.length), byName: false };
}

/** Purge on the deleted list: permanent, so the administrator types the name or the count first. */
export function PurgeButton({ meta, nameField, disabledReason }: { meta?: IamMeta; nameField: string; disabledReason?: string }) {
  const { selectedIds, data } = useListContext();
  const translate = useTranslate();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const { expected, byName } = purgeConfirmation(selectedIds, data, nameField);

  const close = () => {
    setOpen(false);
    setTyped('');
  };
  const { purge, isPending } = usePurgeSelection(meta, 'iam.statusList.purged', close);

  return (
    <>
      <PurgeSelectionButton pending={isPending} disabledReason={disabledReason} onClick={() => setOpen(true)} />
      <Dialog open={open} onClose={close} aria-labelledby="purge-title">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (typed.trim() === expected) void purge();
          }}
        >
          <DialogTitle id="purge-title">
            {translate('iam.statusList.purgeTitle', { count: selectedIds.length })}
          </DialogTitle>
          <DialogContent>
            <DialogContentText>{translate('iam.statusList.purgeContent')}</DialogContentText>
            <TextField
              autoFocus
              fullWidth
              margin="normal"
              autoComplete="off"
              label={translate(byName ? 'iam.statusList.purgeTypeName' : 'iam.statusList.purgeTypeCount', { expected })}
              value={typed}
              onChange={(event) => setTyped(event.target.value)}
            />
          </DialogContent>
          <DialogActions>
            <Button onClick={close}>{translate('iam.actions.cancel')}</Button>
            <Button type="submit" color="error" variant="contained" disabled={typed.trim() !== expected || isPending}>
              {translate('iam.statusList.purge')}
            </Button>
          </DialogActions>
        </form>
      </Dialog>
    </>
  );
}
