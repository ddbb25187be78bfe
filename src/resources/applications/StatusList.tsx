import { useState } from 'react';
import { Button, Stack, ToggleButton, ToggleButtonGroup } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/Delete';
import RestoreIcon from '@mui/icons-material/Restore';
import {
  Confirm,
  TopToolbar,
  useListContext,
  useNotify,
  useTranslate,
  useUpdateMany,
  type RaRecord,
} from 'react-admin';
import type { IamMeta } from '../../dataProvider';
import { useDeclaration } from '../generic/DeclarationContext';
import { DeclaredList } from '../generic/DeclaredList';
import { DeleteSelectedButton } from '../generic/DeleteSelectedButton';
import { useListMeta } from '../generic/useListMeta';
import { DomainSwitcher } from './DomainSwitcher';

export type ListStatus = 'active' | 'deleted';

/** Sets the soft-delete status of the selected rows (Delete: deleted, Recover: active), after a confirmation. */
function SetStatusButton({ to, meta }: { to: ListStatus; meta: IamMeta }) {
  const declaration = useDeclaration();
  const { selectedIds, onUnselectItems } = useListContext();
  const translate = useTranslate();
  const notify = useNotify();
  const [open, setOpen] = useState(false);
  const [updateMany, { isPending }] = useUpdateMany();
  const soft = declaration.softDelete!;
  const deleting = to === 'deleted';

  const confirm = async () => {
    try {
      await updateMany(
        declaration.name,
        { ids: selectedIds, data: { [soft.field]: deleting ? soft.deleted : soft.active }, meta },
        { mutationMode: 'pessimistic', returnPromise: true },
      );
      notify(deleting ? 'iam.statusList.softDeleted' : 'iam.statusList.recovered', {
        type: 'info',
        messageArgs: { count: selectedIds.length },
      });
      onUnselectItems();
    } catch (error) {
      notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
    } finally {
      setOpen(false);
    }
  };

  const action = deleting ? 'iam.actions.delete' : 'iam.statusList.recover';
  return (
    <>
      <Button
        startIcon={deleting ? <DeleteIcon /> : <RestoreIcon />}
        color={deleting ? 'error' : 'primary'}
        disabled={selectedIds.length === 0 || isPending}
        onClick={() => setOpen(true)}
      >
        {translate(action)}
      </Button>
      <Confirm
        isOpen={open}
        loading={isPending}
        title={deleting ? 'iam.statusList.softDeleteTitle' : 'iam.applications.recoverTitle'}
        content={deleting ? 'iam.statusList.softDeleteContent' : 'iam.applications.recoverContent'}
        translateOptions={{ count: selectedIds.length }}
        confirm={action}
        cancel="iam.actions.cancel"
        onConfirm={confirm}
        onClose={() => setOpen(false)}
      />
    </>
  );
}

interface StatusListProps {
  onNew: () => void;
  onRowClick: (record: RaRecord) => void;
}

/**
 * A list of one domain's records with the Domains drop-down, a status filter (active or deleted),
 * New and Delete on active records, Recover and Purge on deleted ones.
 */
export function StatusList({ onNew, onRowClick }: StatusListProps) {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const [status, setStatus] = useState<ListStatus>('active');
  const soft = declaration.softDelete!;
  const meta = useListMeta(status === 'deleted' ? { condition: `${soft.field},=,${soft.deleted}` } : {});

  return (
    <DeclaredList
      key={status}
      title={translate(declaration.labelKey)}
      meta={meta}
      onRowClick={onRowClick}
      actions={
        <TopToolbar sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}>
            <DomainSwitcher />
            <ToggleButtonGroup
              exclusive
              size="small"
              value={status}
              aria-label={translate('iam.statusList.status')}
              // The standard grey of unselected buttons falls just under 4.5:1 on the page background.
              sx={{ '& .MuiToggleButton-root': { color: 'text.secondary' }, '& .Mui-selected': { color: 'text.primary' } }}
              onChange={(_event, value: ListStatus | null) => value && setStatus(value)}
            >
              <ToggleButton value="active">{translate('iam.statusList.active')}</ToggleButton>
              <ToggleButton value="deleted">{translate('iam.statusList.deleted')}</ToggleButton>
            </ToggleButtonGroup>
            {status === 'active' ? (
              <>
                <Button variant="contained" startIcon={<AddIcon />} onClick={onNew}>
                  {translate('iam.actions.new')}
                </Button>
                <SetStatusButton to="deleted" meta={meta} />
              </>
            ) : (
              <>
                <SetStatusButton to="active" meta={meta} />
                <DeleteSelectedButton meta={meta} successMessage="iam.statusList.purged" />
              </>
            )}
          </Stack>
        </TopToolbar>
      }
    />
  );
}
