import { useState, type FormEvent } from 'react';
import { Alert, Box, Button, FormControlLabel, IconButton, Stack, Switch, TextField as MuiTextField, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteIcon from '@mui/icons-material/Delete';
import {
  Datagrid,
  ListBase,
  TextField,
  useCreate,
  useDelete,
  useListContext,
  useNotify,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import type { IamMeta } from '../../dataProvider';
import type { PathContext } from '../../session/session';
import { saveErrorMessage } from '../generic/saveError';
import { WindowPagination } from '../generic/WindowPagination';
import { permissionScopes } from './index';

/** The scopes' provider path is the API's: /api/{apiId}/PermissionScopes. */
export function scopeMeta(apiId: string): IamMeta {
  const pathContext: Partial<PathContext> & { apiId: string } = { apiId };
  return { pathContext };
}

function DeleteScopeButton({ meta, editing }: { meta: IamMeta; editing: boolean }) {
  const record = useRecordContext();
  const translate = useTranslate();
  const notify = useNotify();
  const { refetch } = useListContext();
  const [remove, { isPending }] = useDelete();
  if (!record) return null;
  return (
    <IconButton
      aria-label={translate('iam.apis.deleteScope', { permission: record.permission })}
      color="error"
      disabled={!editing || isPending}
      onClick={async () => {
        try {
          await remove(
            permissionScopes.name,
            { id: record.id, previousData: record, meta },
            { mutationMode: 'pessimistic', returnPromise: true },
          );
          notify('iam.apis.scopeDeleted', { type: 'info', messageArgs: { permission: record.permission } });
          refetch();
        } catch (error) {
          notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
        }
      }}
    >
      <DeleteIcon />
    </IconButton>
  );
}

function AddScopeForm({ meta, editing }: { meta: IamMeta; editing: boolean }) {
  const translate = useTranslate();
  const { refetch } = useListContext();
  const [permission, setPermission] = useState('');
  const [description, setDescription] = useState('');
  const [missing, setMissing] = useState(false);
  const [error, setError] = useState<string>();
  const [create, { isPending }] = useCreate();

  const add = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    const trimmed = permission.trim();
    if (!trimmed) {
      setMissing(true);
      return;
    }
    try {
      await create(
        permissionScopes.name,
        { data: { permission: trimmed, description: description.trim(), id: trimmed }, meta },
        { returnPromise: true },
      );
      setPermission('');
      setDescription('');
      refetch();
    } catch (failure) {
      setError(saveErrorMessage(failure, trimmed, translate));
    }
  };

  return (
    <Box component="form" noValidate onSubmit={add} aria-label={translate('iam.apis.addScope')}>
      {error && (
        <Alert severity="error" role="alert" sx={{ mb: 2 }}>
          {error}
        </Alert>
      )}
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'flex-start' } }}>
        <MuiTextField
          label={translate('resources.permissionScopes.fields.permission')}
          required
          value={permission}
          onChange={(event) => {
            setPermission(event.target.value);
            setMissing(false);
          }}
          error={missing}
          helperText={missing ? translate('iam.errors.required') : ' '}
          disabled={!editing}
          size="small"
          variant="outlined"
          sx={{ flex: '1 1 0', minWidth: 0 }}
        />
        <MuiTextField
          label={translate('resources.permissionScopes.fields.description')}
          value={description}
          onChange={(event) => setDescription(event.target.value)}
          helperText=" "
          disabled={!editing}
          size="small"
          variant="outlined"
          sx={{ flex: '2 1 0', minWidth: 0 }}
        />
        <Button type="submit" variant="contained" startIcon={<AddIcon />} disabled={!editing || isPending}>
          {translate('iam.apis.add')}
        </Button>
      </Stack>
    </Box>
  );
}

/**
 * SPEC 2.11 Permission tab: Permission (required) and Description inputs with Add, enabled only in
 * edit mode; below, the API's scopes with a delete action per row, 15 per page.
 */
export function PermissionTab({ apiId, onClose }: { apiId: string; onClose: () => void }) {
  const translate = useTranslate();
  const [editing, setEditing] = useState(false);
  const meta = scopeMeta(apiId);

  return (
    <ListBase
      resource={permissionScopes.name}
      perPage={permissionScopes.pageSize}
      sort={permissionScopes.defaultSort}
      queryOptions={{ meta: meta as Record<string, unknown> }}
      disableSyncWithLocation
      storeKey={false}
    >
      <Stack direction="row" sx={{ justifyContent: 'space-between', alignItems: 'center', mb: 2 }}>
        <Typography variant="h6" component="h2">
          {translate('iam.apis.tabs.permission')}
        </Typography>
        <FormControlLabel
          control={<Switch checked={editing} onChange={(event) => setEditing(event.target.checked)} />}
          label={translate('iam.actions.edit')}
        />
      </Stack>
      <AddScopeForm meta={meta} editing={editing} />
      <Datagrid
        bulkActionButtons={false}
        rowClick={false}
        empty={
          <Typography sx={{ p: 2 }} color="text.secondary">
            {translate('iam.apis.noScopes')}
          </Typography>
        }
      >
        <TextField source="permission" sortable={false} />
        <TextField source="description" sortable={false} />
        <DeleteScopeButton meta={meta} editing={editing} />
      </Datagrid>
      <WindowPagination window={permissionScopes.pageWindow} rowsPerPageOptions={[permissionScopes.pageSize]} />
      <Button onClick={onClose} sx={{ mt: 1 }}>
        {translate('iam.actions.close')}
      </Button>
    </ListBase>
  );
}
