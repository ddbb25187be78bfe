import { useState, type FormEvent } from 'react';
import { Alert, Box, Button, IconButton, Link, Stack, TextField as MuiTextField, Tooltip, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import DeleteForeverIcon from '@mui/icons-material/DeleteForever';
import LinkIcon from '@mui/icons-material/Link';
import {
  Datagrid,
  FunctionField,
  ListBase,
  TextField,
  useCreate,
  useDelete,
  useListContext,
  useLocation,
  useNavigate,
  useNotify,
  useRecordContext,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import type { IamMeta } from '../../dataProvider';
import type { PathContext } from '../../session/session';
import { DisabledReason } from '../generic/DisabledReason';
import { checkValue } from '../generic/fieldChecks';
import { scopeHref } from '../generic/recordLink';
import { useAllowed } from '../generic/useAllowed';
import { describeSaveFailure, type SaveFailure } from '../generic/saveError';
import { SaveErrorAlert } from '../generic/SaveErrorAlert';
import { rowsPerPageOptions, useRememberedPerPage, WindowPagination } from '../generic/WindowPagination';
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

/** The search box over the API's scopes (filter.q: permission and description, on the API's own rows). */
function ScopeSearch() {
  const translate = useTranslate();
  const { filterValues, setFilters } = useListContext();
  const navigate = useNavigate();
  const location = useLocation();
  const [text, setText] = useState(typeof filterValues.q === 'string' ? filterValues.q : '');
  return (
    <MuiTextField
      type="search"
      size="small"
      label={translate('iam.apis.searchScopes')}
      value={text}
      onChange={(event) => {
        setText(event.target.value);
        const q = event.target.value.trim();
        // from page 1, once typing pauses (react-admin's debounce); a linked scope's filter goes
        setFilters(q ? { q } : {}, {});
        // the address says what is shown: the search (`&scopes=`), no longer the linked scope
        const query = new URLSearchParams(location.search);
        query.delete('scope');
        if (q) query.set('scopes', q);
        else query.delete('scopes');
        navigate({ pathname: location.pathname, search: `?${query}` }, { replace: true, state: location.state });
      }}
      sx={{ mt: 1, mb: 1, width: { xs: '100%', sm: 320 } }}
    />
  );
}

/**
 * Opened at a scope's address: the list holds that scope alone and says so; Show all goes to the
 * address without the scope (the tab stays), so the address always says what is shown.
 */
function LinkedScopeNotice({ scope }: { scope: string }) {
  const translate = useTranslate();
  const navigate = useNavigate();
  const location = useLocation();
  const { filterValues, total, isPending } = useListContext();
  if (!Array.isArray(filterValues.id)) return null;
  const missing = !isPending && total === 0;
  const showAll = () => {
    const query = new URLSearchParams(location.search);
    query.delete('scope');
    navigate(`${location.pathname}?${query.toString()}`, { replace: true, state: location.state });
  };
  return (
    <Alert
      severity={missing ? 'warning' : 'info'}
      role="status"
      sx={{ mb: 1 }}
      action={<Button onClick={showAll}>{translate('iam.apis.showAllScopes')}</Button>}
    >
      {translate(missing ? 'iam.apis.linkedScopeMissing' : 'iam.apis.linkedScope', { permission: scope })}
    </Alert>
  );
}

interface ScopeLinkProps {
  apiId: string;
  context: PathContext;
}

/**
 * A scope's permission as a link to its own address (docs/CONSOLE.md, "Routes"): opened in place it
 * finds the scope on this tab; copied or opened in a new tab it opens the API there. Beside it, Copy link.
 */
function ScopePermission({ apiId, context }: ScopeLinkProps) {
  const record = useRecordContext();
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const location = useLocation();
  if (!record) return null;
  const permission = String(record.permission);
  const href = scopeHref(apiId, permission, context);
  if (!href) return <>{permission}</>;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(new URL(href, window.location.origin).href);
      notify('iam.recordLink.copied', { type: 'info' });
    } catch {
      notify('iam.secret.copyFailed', { type: 'warning' });
    }
  };
  return (
    <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5, overflowWrap: 'anywhere' }}>
      <Link
        href={href}
        underline="hover"
        onClick={(event) => {
          if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
          event.preventDefault();
          // the screen's state stays: the same API, this scope found
          navigate(href, { state: location.state });
        }}
      >
        {permission}
      </Link>
      <Tooltip title={translate('iam.apis.copyScopeLink', { permission })}>
        <IconButton size="small" aria-label={translate('iam.apis.copyScopeLink', { permission })} onClick={copy}>
          <LinkIcon fontSize="inherit" />
        </IconButton>
      </Tooltip>
    </Box>
  );
}

/**
 * The Permission tab (docs/CONSOLE.md, "APIs and permission scopes"): Permission (required) and
 * Description inputs with Add, ready at once for those whose roles may change the API's scopes, and
 * read-only, saying why, for the others; below, a search and the API's scopes, each a link to its
 * own address, with a Purge action per row, 15 per page. Opened at a scope's address (`scope`), it
 * lists that scope, marked.
 */
export function PermissionTab({ apiId, scope, context, onClose }: { apiId: string; scope?: string; context: PathContext; onClose: () => void }) {
  const translate = useTranslate();
  // a search kept in the address (`&scopes=read`): a searched tab is a link too
  const search = new URLSearchParams(useLocation().search).get('scopes')?.trim();
  const [error, setError] = useState<SaveFailure['alert']>();
  const meta = scopeMeta(apiId);
  const mayEdit = useAllowed('edit', permissionScopes.name);
  const editing = mayEdit.allowed;
  const [perPage, rememberPerPage] = useRememberedPerPage(`${permissionScopes.name}.embedded`, permissionScopes.pageSize);

  return (
    <ListBase
      resource={permissionScopes.name}
      perPage={perPage}
      sort={permissionScopes.defaultSort}
      queryOptions={{ meta: meta as Record<string, unknown> }}
      // the scope's primary key: that one row, wherever it falls in the list
      filterDefaultValues={scope ? { id: [scope] } : search ? { q: search } : undefined}
      disableSyncWithLocation
      storeKey={false}
    >
      <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
        {translate('iam.apis.tabs.permission')}
      </Typography>
      {mayEdit.reason && (
        <Alert severity="info" role="status" sx={{ mb: 2 }}>
          {translate('iam.apis.scopesReadOnly', { reason: mayEdit.reason })}
        </Alert>
      )}
      <AddScopeForm meta={meta} editing={editing} error={error} setError={setError} />
      <ScopeSearch />
      {scope && <LinkedScopeNotice scope={scope} />}
      <Datagrid
        bulkActionButtons={false}
        rowClick={false}
        rowSx={(record: RaRecord) => (record.id === scope ? { backgroundColor: 'action.selected' } : {})}
        empty={
          <Typography sx={{ p: 2 }} color="text.secondary">
            {translate('iam.apis.noScopes')}
          </Typography>
        }
      >
        <FunctionField source="permission" sortable={false} render={() => <ScopePermission apiId={apiId} context={context} />} />
        <TextField source="description" sortable={false} />
        <DeleteScopeButton meta={meta} editing={editing} onDone={() => setError(undefined)} />
      </Datagrid>
      <WindowPagination
        window={permissionScopes.pageWindow}
        rowsPerPageOptions={rowsPerPageOptions(permissionScopes.pageSize)}
        onPerPageChange={rememberPerPage}
      />
      <Button onClick={onClose} sx={{ mt: 1 }}>
        {translate('iam.actions.close')}
      </Button>
    </ListBase>
  );
}
