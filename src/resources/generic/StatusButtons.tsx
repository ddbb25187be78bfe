import { useState } from 'react';
import { Button } from '@mui/material';
import DeleteIcon from '@mui/icons-material/Delete';
import RestoreIcon from '@mui/icons-material/RestoreFromTrash';
import { Confirm, useDataProvider, useListContext, useNotify, useRefresh, useTranslate } from 'react-admin';
import type { IamDataProvider, IamMeta } from '../../dataProvider';
import { useDeclaration } from './DeclarationContext';
import { DisabledReason } from './DisabledReason';
import { useAllowed } from './useAllowed';

function useSetStatus(meta: IamMeta | undefined) {
  const declaration = useDeclaration();
  const dataProvider = useDataProvider<IamDataProvider>();
  const { selectedIds, onUnselectItems } = useListContext();
  const notify = useNotify();
  const refresh = useRefresh();
  const [pending, setPending] = useState(false);
  const soft = declaration.softDelete!;

  const setStatus = async (status: string, successMessage: string) => {
    setPending(true);
    try {
      // The provider's collection PUT changes only the listed records, all or none: one call for the selection.
      await dataProvider.replaceAll(declaration.name, {
        data: selectedIds.map((id) => ({ id, [soft.field]: status })),
        meta,
      });
      notify(successMessage, { type: 'info', messageArgs: { count: selectedIds.length } });
      onUnselectItems();
      refresh();
    } catch (error) {
      notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
    } finally {
      setPending(false);
    }
  };
  return { setStatus, pending, count: selectedIds.length, soft };
}

/**
 * Delete on an active list: a soft delete (status deleted) of the selection, after a confirmation.
 * `disabledReason` says why the selection cannot be deleted (the provider would refuse it); the
 * roles' reason comes first.
 */
export function SoftDeleteButton({ meta, disabledReason }: { meta?: IamMeta; disabledReason?: string }) {
  const translate = useTranslate();
  const { setStatus, pending, count, soft } = useSetStatus(meta);
  const { allowed, reason } = useAllowed('delete');
  const why = reason ?? disabledReason;
  const [open, setOpen] = useState(false);
  return (
    <>
      <DisabledReason reason={why}>
        <Button
          startIcon={<DeleteIcon />}
          color="error"
          disabled={count === 0 || pending || !allowed || Boolean(why)}
          onClick={() => setOpen(true)}
        >
          {translate('iam.actions.delete')}
        </Button>
      </DisabledReason>
      <Confirm
        isOpen={open}
        loading={pending}
        title="iam.statusList.softDeleteTitle"
        content="iam.statusList.softDeleteContent"
        translateOptions={{ count }}
        confirm="iam.actions.delete"
        cancel="iam.actions.cancel"
        onConfirm={async () => {
          await setStatus(soft.deleted, 'iam.statusList.softDeleted');
          setOpen(false);
        }}
        onClose={() => setOpen(false)}
      />
    </>
  );
}

interface RecoverButtonProps {
  meta?: IamMeta;
  /**
   * Title and content keys of a confirmation to ask first (applications and APIs: recovering one
   * lets it sign users in again). Without it nothing is lost, so nothing is asked.
   */
  confirm?: { title: string; content: string };
}

/** Recover on the deleted list: the selection becomes active again. */
export function RecoverButton({ meta, confirm }: RecoverButtonProps) {
  const translate = useTranslate();
  const { setStatus, pending, count, soft } = useSetStatus(meta);
  const { allowed, reason } = useAllowed('recover');
  const [open, setOpen] = useState(false);
  const recover = () => setStatus(soft.active, 'iam.statusList.recovered');
  return (
    <>
      <DisabledReason reason={reason}>
        <Button startIcon={<RestoreIcon />} disabled={count === 0 || pending || !allowed} onClick={() => (confirm ? setOpen(true) : recover())}>
          {translate('iam.statusList.recover')}
        </Button>
      </DisabledReason>
      {confirm && (
        <Confirm
          isOpen={open}
          loading={pending}
          title={confirm.title}
          content={confirm.content}
          translateOptions={{ count }}
          confirm="iam.statusList.recover"
          cancel="iam.actions.cancel"
          onConfirm={async () => {
            await recover();
            setOpen(false);
          }}
          onClose={() => setOpen(false)}
        />
      )}
    </>
  );
}
