import { useEffect, useState } from 'react';
import {
  Alert,
  Checkbox,
  Dialog,
  DialogContent,
  DialogTitle,
  FormControl,
  FormControlLabel,
  FormGroup,
  FormLabel,
  LinearProgress,
  MenuItem,
  TextField,
  Typography,
} from '@mui/material';
import { useTranslate } from 'react-admin';
import type { PathContext } from '../../../session/session';
import { PickerActions } from '../panel/PickerActions';
import { useGroupCall } from '../panel/useGroupCall';
import { useGroupCallError } from '../panel/usePagedRequest';
import { permissionsApi, type DomainApi, type Scope } from './permissionsApi';

interface AddPermissionsDialogProps {
  context: PathContext;
  group: { id: string; displayName?: string; name?: string };
  onClose: () => void;
  onAdded: (count: number) => void;
}

interface Loaded<T> {
  rows: T[];
  isPending: boolean;
  error?: string;
}

/** Loads `load()` whenever `key` changes (nothing while key is empty); the result of an older key is dropped. */
function useLoad<T>(load: () => Promise<T[]>, key: string): Loaded<T> {
  const handleError = useGroupCallError();
  const [state, setState] = useState<Loaded<T>>({ rows: [], isPending: Boolean(key) });
  useEffect(() => {
    if (!key) {
      setState({ rows: [], isPending: false });
      return;
    }
    let current = true;
    setState({ rows: [], isPending: true });
    load().then(
      (rows) => current && setState({ rows, isPending: false }),
      async (error) => {
        const message = await handleError(error);
        if (current) setState({ rows: [], isPending: false, error: message });
      },
    );
    return () => {
      current = false;
    };
    // load is rebuilt every render; key names what it reads.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, handleError]);
  return state;
}

/**
 * Grant permissions: pick one API of the group's domain, then one or more of its permission scopes.
 * Add posts them as [{apiId, permission}]; Close and Escape leave without change.
 */
export function AddPermissionsDialog({ context, group, onClose, onAdded }: AddPermissionsDialogProps) {
  const translate = useTranslate();
  const [apiId, setApiId] = useState('');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const { busy, error, run } = useGroupCall();

  const apis = useLoad<DomainApi>(() => permissionsApi.apis(context), `${context.companyId}/${context.domainId}`);
  const scopes = useLoad<Scope>(() => permissionsApi.scopes(apiId), apiId);

  const chooseApi = (id: string) => {
    setApiId(id);
    setSelected(new Set());
  };

  const toggle = (scopeId: string, checked: boolean) =>
    setSelected((previous) => {
      const next = new Set(previous);
      if (checked) next.add(scopeId);
      else next.delete(scopeId);
      return next;
    });

  const add = async () => {
    const grants = [...selected].map((permission) => ({ apiId, permission }));
    if (await run(() => permissionsApi.add(context, group.id, grants))) {
      onAdded(selected.size);
      onClose();
    }
  };

  const loadError = apis.error ?? scopes.error;

  return (
    <Dialog open onClose={onClose} aria-labelledby="add-permissions-title" fullWidth maxWidth="sm">
      <DialogTitle id="add-permissions-title">
        {translate('iam.groupPermissions.dialogTitle', { group: group.displayName || group.name || group.id })}
      </DialogTitle>
      <DialogContent>
        {apis.isPending && <LinearProgress aria-label={translate('iam.list.loading')} />}
        {!apis.isPending && !apis.error && apis.rows.length === 0 ? (
          <Typography color="text.secondary" role="status" sx={{ py: 1 }}>
            {translate('iam.groupPermissions.noApis')}
          </Typography>
        ) : (
          <TextField
            select
            fullWidth
            label={translate('iam.groupPermissions.api')}
            value={apiId}
            onChange={(event) => chooseApi(event.target.value)}
            disabled={apis.isPending}
            sx={{ mt: 1 }}
          >
            {apis.rows.map((api) => (
              <MenuItem key={api.id} value={api.id}>
                {api.identifier ? `${api.name} (${api.identifier})` : api.name}
              </MenuItem>
            ))}
          </TextField>
        )}
        {apiId && (
          <FormControl component="fieldset" variant="standard" sx={{ mt: 2, width: '100%' }}>
            <FormLabel component="legend">{translate('iam.groupPermissions.scopes')}</FormLabel>
            {scopes.isPending && <LinearProgress aria-label={translate('iam.list.loading')} />}
            {!scopes.isPending && !scopes.error && scopes.rows.length === 0 && (
              <Typography color="text.secondary" role="status" sx={{ py: 1 }}>
                {translate('iam.groupPermissions.noScopes')}
              </Typography>
            )}
            <FormGroup>
              {scopes.rows.map((scope) => (
                <FormControlLabel
                  key={scope.id}
                  control={
                    <Checkbox checked={selected.has(scope.id)} onChange={(event) => toggle(scope.id, event.target.checked)} />
                  }
                  label={
                    <>
                      <Typography component="span" sx={{ fontFamily: 'monospace' }}>
                        {scope.permission}
                      </Typography>
                      {scope.description && (
                        <Typography component="span" color="text.secondary">
                          {` — ${scope.description}`}
                        </Typography>
                      )}
                    </>
                  }
                />
              ))}
            </FormGroup>
          </FormControl>
        )}
        {(loadError || error) && (
          <Alert severity="error" role="alert" sx={{ mt: 1 }}>
            {error ?? loadError}
          </Alert>
        )}
      </DialogContent>
      <PickerActions
        selectedText="iam.groupPermissions.selected"
        closeText="iam.groupPermissions.close"
        addText="iam.groupPermissions.add"
        count={selected.size}
        busy={busy}
        onClose={onClose}
        onAdd={add}
      />
    </Dialog>
  );
}
