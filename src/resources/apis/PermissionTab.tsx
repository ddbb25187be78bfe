import { useState, type FormEvent } from 'react';
import { Box, Button, FormControlLabel, IconButton, Stack, Switch, TextField as MuiTextField, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteForeverIcon from '@mui/icons-material/DeleteForever';
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
import { DisabledReason } from '../generic/DisabledReason';
import { checkValue } from '../generic/fieldChecks';
import { useAllowed } from '../generic/useAllowed';
import { describeSaveFailure, type SaveFailure } from '../generic/saveError';
import { SaveErrorAlert } from '../generic/SaveErrorAlert';
import { rowsPerPageOptions, WindowPagination } from '../generic/WindowPagination';
import { permissionScopes } from './index';

/** The scopes' provider path is the API's: /api/{apiId}/PermissionScopes. */
export function scopeMeta(apiId: string): IamMeta {
  const pathContext: Partial<PathContext> = { parentId: apiId };
  return { pathContext };
}

/** Removing a scope is permanent (no soft delete): "Purge", as everywhere (docs/CONSOLE.md, "Resources"). */
function DeleteScopeButton({ meta, editing, onDone }: { meta: IamMeta; editing: boolean; onDone: () => void }) {
  const record = useRecordContext();
  const translate = useTranslate();
  const notify = useNotify();
  const { refetch } = useListContext();
  const [remove, { isPending }] = useDelete();
  const { allowed, reason } = useAllowed('purge', permissionScopes.name);
  if (!record) return null;
  return (
    <DisabledReason reason={editing ? reason : undefined}>
      <IconButton
        aria-label={translate('iam.apis.deleteScope', { permission: record.permission })}
        color="error"
        disabled={!editing || isPending || !allowed}
        onClick={async () => {
          try {
            await remove(
              permissionScopes.name,
              { id: record.id, previousData: record, meta },
              { mutationMode: 'pessimistic', returnPromise: true },
            );
            notify('iam.apis.scopeDeleted', { type: 'info', messageArgs: { permission: record.permission } });
            onDone();
            refetch();
          } catch (error) {
            notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
          }
        }}
      >
        <DeleteForeverIcon />
      </IconButton>
    </DisabledReason>
  );
}

const fieldOf = (source: string) => permissionScopes.fields.find((field) => field.source === source)!;

interface AddScopeFormProps {
  meta: IamMeta;
  editing: boolean;
  /** The alert above the form; PermissionTab holds it so a later purge can clear it. */
  error?: SaveFailure['alert'];
  setError: (error: SaveFailure['alert']) => void;
}

function AddScopeForm({ meta, editing, error, setError }: AddScopeFormProps) {
  const translate = useTranslate();
  const { refetch } = useListContext();
  const [permission, setPermission] = useState('');
  const [description, setDescription] = useState('');
  // sentences under the two inputs: the browser's checks, then the provider's refusals
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [create, { isPending }] = useCreate();

  const say = (message: ReturnType<typeof checkValue>) =>
    message === undefined ? undefined : typeof message === 'string' ? translate(message) : translate(message.message, message.args);

  const add = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    const trimmed = permission.trim();
    const checked = {
      permission: trimmed ? say(checkValue(fieldOf('permission'), trimmed)) : translate('iam.errors.required'),
      description: say(checkValue(fieldOf('description'), description.trim())),
    };
    const found = Object.fromEntries(Object.entries(checked).filter(([, message]) => message)) as Record<string, string>;
    setFieldErrors(found);
    if (Object.keys(found).length > 0) return;
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
      const { fieldErrors: refused = {}, alert } = describeSaveFailure(
        failure,
        { sources: ['permission', 'description'], fields: permissionScopes.fields, aliases: { id: 'permission' }, name: trimmed },
        translate,
      );
      setFieldErrors(refused);
      setError(alert);
    }
  };

  return (
    <Box component="form" noValidate onSubmit={add} aria-label={translate('iam.apis.addScope')}>
      <SaveErrorAlert alert={error} />
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ alignItems: { sm: 'flex-start' } }}>
        <MuiTextField
          label={translate('resources.permissionScopes.fields.permission')}
          required
          value={permission}
          onChange={(event) => {
            setPermission(event.target.value);
            setFieldErrors(({ permission: _fixed, ...others }) => others);
          }}
          error={Boolean(fieldErrors.permission)}
          helperText={fieldErrors.permission ?? ' '}
          disabled={!editing}
          size="small"
          sx={{ flex: '1 1 0', minWidth: 0 }}
        />
        <MuiTextField
          label={translate('resources.permissionScopes.fields.description')}
          value={description}
          onChange={(event) => {
            setDescription(event.target.value);
            setFieldErrors(({ description: _fixed, ...others }) => others);
          }}
          error={Boolean(fieldErrors.description)}
          helperText={fieldErrors.description ?? ' '}
          disabled={!editing}
          size="small"
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
 * The Permission tab (docs/CONSOLE.md, "APIs and permission scopes"): Permission (required) and Description inputs with Add, enabled only in
 * edit mode; below, the API's scopes with a delete action per row, 15 per page.
 */
export function PermissionTab({ apiId, onClose }: { apiId: string; onClose: () => void }) {
  const translate = useTranslate();
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<SaveFailure['alert']>();
  const meta = scopeMeta(apiId);
  const mayEdit = useAllowed('edit', permissionScopes.name);

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
        <DisabledReason reason={mayEdit.reason}>
          <FormControlLabel
            control={<Switch checked={editing} disabled={!mayEdit.allowed} onChange={(event) => setEditing(event.target.checked)} />}
            label={translate('iam.actions.edit')}
          />
        </DisabledReason>
      </Stack>
      <AddScopeForm meta={meta} editing={editing} error={error} setError={setError} />
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
        <DeleteScopeButton meta={meta} editing={editing} onDone={() => setError(undefined)} />
      </Datagrid>
      <WindowPagination window={permissionScopes.pageWindow} rowsPerPageOptions={rowsPerPageOptions(permissionScopes.pageSize)} />
      <Button onClick={onClose} sx={{ mt: 1 }}>
        {translate('iam.actions.close')}
      </Button>
    </ListBase>
  );
}
