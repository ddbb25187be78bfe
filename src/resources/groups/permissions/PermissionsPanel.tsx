import { useState } from 'react';
import { Alert, Button, Stack } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import { Confirm, useDeleteMany, useNotify, useTranslate } from 'react-admin';
import type { PathContext } from '../../../session/session';
import { DisabledReason } from '../../generic/DisabledReason';
import { useAllowed, useAllowedAll } from '../../generic/useAllowed';
import { groupPermissions } from '../index';
import { groupMeta, useErrorText, useGroupList } from '../panel/useGroupList';
import { AddPermissionsDialog } from './AddPermissionsDialog';
import { grantRef, type GroupPermission } from './permission';
import { PermissionTable } from './PermissionTable';

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
  const permissions = useGroupList<GroupPermission>(groupPermissions, context, group.id);
  const [deleteMany, removal] = useDeleteMany();
  const error = useErrorText()(removal.error);
  const removing = removal.isPending;
  // the picker reads the domain's APIs and their scopes
  const mayAdd = useAllowedAll([{ action: 'create', resource: groupPermissions.name }, { action: 'list', resource: 'apis' }]);
  const mayRemove = useAllowed('delete', groupPermissions.name);

  const remove = async () => {
    if (!deleting) return;
    try {
      await deleteMany(
        groupPermissions.name,
        { ids: [deleting.id], meta: groupMeta(context, group.id, { body: [grantRef(deleting)] }) },
        { returnPromise: true },
      );
      notify('iam.groupPermissions.removed', { type: 'info', messageArgs: { permission: deleting.permission } });
    } catch {
      // the refusal shows above the table until a later success
    }
    setDeleting(undefined);
  };

  return (
    <>
      <Stack direction="row" spacing={1} sx={{ mb: 1 }}>
        <DisabledReason reason={mayAdd.reason}>
          <Button startIcon={<AddIcon />} variant="contained" disabled={!mayAdd.allowed} onClick={() => setAdding(true)}>
            {translate('iam.groupPermissions.add')}
          </Button>
        </DisabledReason>
      </Stack>
      {error && (
        <Alert severity="error" role="alert" sx={{ mb: 1 }}>
          {error}
        </Alert>
      )}
      <PermissionTable
        list={permissions}
        disabled={removing || !mayRemove.allowed}
        disabledReason={mayRemove.reason}
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
            removal.reset();
            notify('iam.groupPermissions.added', { type: 'info', messageArgs: { count } });
          }}
        />
      )}
    </>
  );
}
