import { useState } from 'react';
import { Button } from '@mui/material';
import DeleteIcon from '@mui/icons-material/Delete';
import { Confirm, useDeleteMany, useListContext, useNotify, useTranslate } from 'react-admin';
import type { IamMeta } from '../../dataProvider';
import { DisabledReason } from './DisabledReason';

interface DeleteSelectedButtonProps {
  meta?: IamMeta;
  successMessage: string;
  /** Why the selection cannot be deleted (the provider would refuse it): the button is disabled and says so. */
  disabledReason?: string;
}

/** Deletes the selected rows in one call after a confirmation dialog. */
export function DeleteSelectedButton({ meta, successMessage, disabledReason }: DeleteSelectedButtonProps) {
  const { resource, selectedIds, onUnselectItems } = useListContext();
  const translate = useTranslate();
  const notify = useNotify();
  const [open, setOpen] = useState(false);
  const [deleteMany, { isPending }] = useDeleteMany();

  const confirm = async () => {
    try {
      await deleteMany(resource, { ids: selectedIds, meta }, { returnPromise: true });
      notify(successMessage, { type: 'info', messageArgs: { count: selectedIds.length } });
      onUnselectItems();
    } catch (error) {
      notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
    } finally {
      setOpen(false);
    }
  };

  return (
    <>
      <DisabledReason reason={disabledReason}>
        <Button
          startIcon={<DeleteIcon />}
          color="error"
          disabled={selectedIds.length === 0 || isPending || Boolean(disabledReason)}
          onClick={() => setOpen(true)}
        >
          {translate('iam.actions.delete')}
        </Button>
      </DisabledReason>
      <Confirm
        isOpen={open}
        loading={isPending}
        title="iam.confirmDelete.title"
        content="iam.confirmDelete.content"
        translateOptions={{ count: selectedIds.length }}
        confirm="iam.actions.delete"
        cancel="iam.actions.cancel"
        onConfirm={confirm}
        onClose={() => setOpen(false)}
      />
    </>
  );
}
