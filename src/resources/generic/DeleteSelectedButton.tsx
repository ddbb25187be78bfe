import { useState } from 'react';
import { Button } from '@mui/material';
import DeleteForeverIcon from '@mui/icons-material/DeleteForever';
import { Confirm, useDeleteMany, useListContext, useNotify, useTranslate } from 'react-admin';
import type { IamMeta } from '../../dataProvider';
import { DisabledReason } from './DisabledReason';
import { useAllowed } from './useAllowed';

interface DeleteSelectedButtonProps {
  meta?: IamMeta;
  successMessage: string;
  /** Why the selection cannot be deleted (the provider would refuse it): the button is disabled and says so. */
  disabledReason?: string;
}

/**
 * Removes the list's selection for good in one call, says so (or why not), and clears the selection;
 * `done` runs either way (closing the confirmation).
 */
export function usePurgeSelection(meta: IamMeta | undefined, successMessage: string, done: () => void) {
  const { resource, selectedIds, onUnselectItems } = useListContext();
  const notify = useNotify();
  const [deleteMany, { isPending }] = useDeleteMany();
  const purge = async () => {
    try {
      await deleteMany(resource, { ids: selectedIds, meta }, { returnPromise: true });
      notify(successMessage, { type: 'info', messageArgs: { count: selectedIds.length } });
      onUnselectItems();
    } catch (error) {
      notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
    } finally {
      done();
    }
  };
  return { purge, isPending };
}

/**
 * Purge, for a selection; disabled while one runs, or with the reason the provider would refuse it
 * (the roles' first).
 */
export function PurgeSelectionButton({ pending, disabledReason, onClick }: { pending: boolean; disabledReason?: string; onClick: () => void }) {
  const { selectedIds } = useListContext();
  const translate = useTranslate();
  const { allowed, reason } = useAllowed('purge');
  const why = reason ?? disabledReason;
  return (
    <DisabledReason reason={why}>
      <Button
        startIcon={<DeleteForeverIcon />}
        color="error"
        disabled={selectedIds.length === 0 || pending || !allowed || Boolean(why)}
        onClick={onClick}
      >
        {translate('iam.statusList.purge')}
      </Button>
    </DisabledReason>
  );
}

/**
 * Removes the selected rows for good in one call after a confirmation dialog. Permanent, so it is
 * "Purge" on the button, in the dialog and in the notification (docs/CONSOLE.md, "Resources").
 */
export function DeleteSelectedButton({ meta, successMessage, disabledReason }: DeleteSelectedButtonProps) {
  const { selectedIds } = useListContext();
  const [open, setOpen] = useState(false);
  const { purge: confirm, isPending } = usePurgeSelection(meta, successMessage, () => setOpen(false));

  return (
    <>
      <PurgeSelectionButton pending={isPending} disabledReason={disabledReason} onClick={() => setOpen(true)} />
      <Confirm
        isOpen={open}
        loading={isPending}
        title="iam.confirmDelete.title"
        content="iam.confirmDelete.content"
        translateOptions={{ count: selectedIds.length }}
        confirm="iam.statusList.purge"
        cancel="iam.actions.cancel"
        onConfirm={confirm}
        onClose={() => setOpen(false)}
      />
    </>
  );
}
