import { useState } from 'react';
import { Alert, Button, Stack } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import { Confirm, useNotify, useTranslate } from 'react-admin';
import type { PathContext } from '../../../session/session';
import { useGroupRows } from '../panel/pageControls';
import { useGroupCall } from '../panel/useGroupCall';
import { AddPermissionsDialog } from './AddPermissionsDialog';
import { PermissionTable } from './PermissionTable';
import { permissionsApi, type GroupPermission } from './permissionsApi';

interface PermissionsPanelProps {
  context: PathContext;
  group: { id: string; name?: string; displayName?: string };
}

/**
 * The group form's Permissions tab (issue 6): API permission scopes granted to the group, which its
 * members hold when an API has RBAC on. Add opens the picker; each row has a confirmed delete.
 */
export function PermissionsPanel({ context, group }: PermissionsPanelProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<GroupPermission>();
  const { busy: removing, error, run, clear } = useGroupCall();
  const { controls, rows: permissions } = useGroupRows(
    (request) => permissionsApi.list(context, group.id, request),
    `${context.companyId}/${context.domainId}/${group.id}/permissions`,
  );

  const remove = async () => {
    if (!deleting) return;
    if (await run(() => permissionsApi.remove(context, group.id, [deleting]))) {
      notify('iam.groupPermissions.removed', { type: 'info', messageArgs: { permission: deleting.permission } });
      permissions.reload();
    }
    setDeleting(undefined);
  };

  return (
    <>
      <Stack direction="row" spacing={1} sx={{ mb: 1 }}>
        <Button startIcon={<AddIcon />} variant="contained" onClick={() => setAdding(true)}>
          {translate('iam.groupPermissions.add')}
        </Button>
      </Stack>
      {error && (
        <Alert severity="error" role="alert" sx={{ mb: 1 }}>
          {error}
        </Alert>
      )}
      <PermissionTable
        rows={permissions.rows}
        total={permissions.total}
        isPending={permissions.isPending}
        error={permissions.error}
        controls={controls}
        disabled={removing}
        onDelete={setDeleting}
      />
      <Confirm
        isOpen={deleting !== undefined}
        loading={removing}
        title="iam.groupPermissions.removeTitle"
        content="iam.groupPermissions.removeContent"
        translateOptions={{ permission: deleting?.permission ?? '', api: deleting?.apiName ?? '' }}
        confirm="iam.groupPermissions.delete"
        cancel="iam.actions.cancel"
        onConfirm={remove}
        onClose={() => setDeleting(undefined)}
      />
      {adding && (
        <AddPermissionsDialog
          context={context}
          group={group}
          onClose={() => setAdding(false)}
          onAdded={(count) => {
            clear();
            notify('iam.groupPermissions.added', { type: 'info', messageArgs: { count } });
            permissions.reload();
          }}
        />
      )}
    </>
  );
}
