import { useState } from 'react';
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
import { useGetList, useTranslate } from 'react-admin';
import type { PathContext } from '../../../session/session';
import { groupPermissions } from '../index';
import { PickerActions } from '../panel/PickerActions';
import { groupMeta, useCreateMany, useErrorText } from '../panel/useGroupList';
import type { DomainApi, Scope } from './permission';

interface AddPermissionsDialogProps {
  context: PathContext;
  group: { id: string; displayName?: string; name?: string };
  onClose: () => void;
  onAdded: (count: number) => void;
}

/** The provider answers at most this many rows a request: enough for a picker. */
const PICKER_LIMIT = 1000;

/**
 * Grant permissions: pick one API of the group's domain, then one or more of its permission scopes.
 * Add posts them as [{apiId, permission}]; Close and Escape leave without change.
 */
export function AddPermissionsDialog({ context, group, onClose, onAdded }: AddPermissionsDialogProps) {
  const translate = useTranslate();
  const [apiId, setApiId] = useState('');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const adding = useCreateMany(groupPermissions.name);
  const errorText = useErrorText();
  const error = errorText(adding.error);
  const page = { page: 1, perPage: PICKER_LIMIT };
  // Only the active APIs of the group's domain have scopes that can be granted.
  const apiList = useGetList<DomainApi & { id: string }>('apis', {
    pagination: page,
    sort: { field: 'name', order: 'ASC' },
    filter: { status: 'active' },
    meta: { pathContext: context, condition: [] },
  });
  const scopeList = useGetList<Scope>(
    'permissionScopes',
    { pagination: page, sort: { field: 'permission', order: 'ASC' }, meta: { pathContext: { parentId: apiId } } },
    { enabled: Boolean(apiId) },
  );
  const apis = { rows: apiList.data ?? [], isPending: apiList.isPending, error: errorText(apiList.error) };
  const scopes = { rows: scopeList.data ?? [], isPending: Boolean(apiId) && scopeList.isPending, error: errorText(scopeList.error) };

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
    try {
      // all or nothing: the provider refuses the lot (400) if one is not a scope of an active API of the domain
      await adding.mutateAsync({ data: grants, meta: groupMeta(context, group.id) });
      onAdded(grants.length);
      onClose();
    } catch {
      // the refusal shows in the dialog
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
        busy={adding.isPending}
        onClose={onClose}
        onAdd={add}
      />
    </Dialog>
  );
}
