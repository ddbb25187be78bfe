import { useState, type FormEvent } from 'react';
import {
  Alert,
  Autocomplete,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControl,
  FormControlLabel,
  FormLabel,
  LinearProgress,
  Radio,
  RadioGroup,
  TextField,
  Typography,
} from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useDataProvider, useGetList, useNotify, useTranslate, type RaRecord } from 'react-admin';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import { useDebounced } from '../../layout/useDebounced';
import { companyLabel, placeOf } from '../../session/place';
import { useSession } from '../../session/useSession';
import { neededRoles, type Role, useRoles } from '../generic/useAllowed';
import { overWords } from './RoleCells';

export type HolderType = 'user' | 'group';

/** Who is given the role: a user or group of a domain. */
export interface Holder {
  type: HolderType;
  id: string;
  name: string;
  companyId: string;
  domainId: string;
}

/**
 * What the signed-in person holds where the role would be given (the company and its subtree, or
 * one domain): a role is hers to give only when she holds all it gives there (docs/CONSOLE.md,
 * "Roles"). Undefined while awaited or when the read failed: the provider decides, and says why.
 */
function useHeldAt(companyId: string | undefined, domainId: string | undefined): readonly string[] | undefined {
  const held = useQuery({
    queryKey: ['auth', 'permissionsAt', companyId, domainId],
    queryFn: async () =>
      ((await httpClient(`${config.apiBase}/me/permissions?${new URLSearchParams({ companyId: companyId!, ...(domainId ? { domainId } : {}) })}`)).json as { permissions?: string[] })
        .permissions ?? [],
    enabled: Boolean(companyId),
  });
  return held.data;
}

/** Candidates the holder field offers at once; typing narrows them on the server. */
const CANDIDATES = 10;

/** A user's or group's name on screen. */
export const holderName = (record: RaRecord) => String(record.displayName || record.username || record.name || record.id);

/** The holder field: an active user or group of the current domain, searched on the server as one types. */
function HolderPicker({ type, value, onChange }: { type: HolderType; value: RaRecord | null; onChange: (record: RaRecord | null) => void }) {
  const translate = useTranslate();
  const [input, setInput] = useState('');
  const searched = useDebounced(input, 250);
  const { data = [], isFetching } = useGetList(type === 'user' ? 'users' : 'groups', {
    pagination: { page: 1, perPage: CANDIDATES },
    sort: { field: 'displayName', order: 'ASC' },
    filter: { status: 'active', ...(searched ? { q: searched } : {}) },
  });
  return (
    <Autocomplete
      options={data}
      value={value}
      onChange={(_event, record) => onChange(record)}
      inputValue={input}
      onInputChange={(_event, text) => setInput(text)}
      // the provider searched already
      filterOptions={(options) => options}
      getOptionLabel={holderName}
      isOptionEqualToValue={(option, chosen) => option.id === chosen.id}
      loading={isFetching}
      loadingText={translate('iam.list.loading')}
      noOptionsText={translate('iam.roles.noHolders')}
      renderOption={({ key, ...props }, record) => (
        <Box component="li" key={key} {...props} sx={{ display: 'block !important' }}>
          {holderName(record)}
          {record.email && (
            <Typography variant="body2" color="text.secondary" component="span" sx={{ display: 'block' }}>
              {String(record.email)}
            </Typography>
          )}
        </Box>
      )}
      renderInput={(params) => <TextField {...params} required label={translate(`iam.members.types.${type}`)} />}
    />
  );
}

interface AssignDialogProps {
  /** Given: the role goes to this user or group (its Roles tab); else the dialog asks for one of the current domain. */
  holder?: Holder;
  onClose: () => void;
}

/**
 * Assign (docs/CONSOLE.md, "Roles"): a role, who holds it (a user or group of the current domain),
 * and over what: the current company and the companies below it, or the current domain only. The
 * provider's refusal stays in the dialog.
 */
export function AssignDialog({ holder, onClose }: AssignDialogProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const dataProvider = useDataProvider();
  const queryClient = useQueryClient();
  const { company, domain } = useSession();
  const roles = useRoles();
  const [role, setRole] = useState('');
  const [type, setType] = useState<HolderType>('user');
  const [picked, setPicked] = useState<RaRecord | null>(null);
  const [over, setOver] = useState<'subtree' | 'domain'>('subtree');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string>();
  const held = useHeldAt(company?.id, over === 'domain' ? domain?.id : undefined);
  /** Why the role is not hers to give here (the permissions it gives that she does not hold), or nothing. */
  const refusal = (candidate: Role) => {
    const missing = held ? candidate.permissions.filter((permission) => !held.includes(permission)) : [];
    return missing.length > 0 ? neededRoles(translate, roles.data, missing) : undefined;
  };
  const chosenRole = roles.data?.find((candidate) => candidate.id === role);
  const roleRefused = chosenRole ? refusal(chosenRole) : undefined;
  const chosen: Holder | undefined =
    holder ??
    (picked && company && domain
      ? { type, id: String(picked.id), name: holderName(picked), companyId: company.id, domainId: domain.id }
      : undefined);

  const assign = async (event: FormEvent) => {
    event.preventDefault();
    if (!company || !role || !chosen) return;
    setSaving(true);
    setError(undefined);
    const domainId = over === 'domain' ? domain?.id : undefined;
    try {
      await dataProvider.create('roleAssignments', {
        data: {
          role,
          holderType: chosen.type,
          holderId: chosen.id,
          holderCompanyId: chosen.companyId,
          holderDomainId: chosen.domainId,
          ...(domainId ? { domainId } : {}),
        },
      });
      const roleName = roles.data?.find((candidate) => candidate.id === role)?.name ?? role;
      notify('iam.roles.assigned', { type: 'info', messageArgs: { role: roleName, holder: chosen.name, over: overWords(translate, company, domainId) } });
      await queryClient.invalidateQueries({ queryKey: ['roleAssignments'] });
      onClose();
    } catch (failure) {
      setError((failure as Error).message || translate('ra.notification.http_error'));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Dialog open onClose={() => !saving && onClose()} aria-labelledby="assign-role-title" fullWidth maxWidth="sm">
      {/* a column like the dialog's own: the content scrolls, the actions stay in sight */}
      <Box component="form" onSubmit={assign} noValidate sx={{ display: 'flex', flexDirection: 'column', minHeight: 0 }}>
        <DialogTitle id="assign-role-title">
          {holder ? translate('iam.roles.assignTo', { holder: holder.name }) : translate('iam.roles.assignTitle')}
        </DialogTitle>
        <DialogContent>
          {!holder && (
            <Box sx={{ mb: 2 }}>
              <FormControl component="fieldset" sx={{ mb: 1 }}>
                <FormLabel component="legend">{translate('iam.roles.holder')}</FormLabel>
                <RadioGroup
                  row
                  value={type}
                  onChange={(event) => {
                    setType(event.target.value as HolderType);
                    setPicked(null);
                  }}
                >
                  <FormControlLabel value="user" control={<Radio />} label={translate('iam.members.types.user')} />
                  <FormControlLabel value="group" control={<Radio />} label={translate('iam.members.types.group')} />
                </RadioGroup>
              </FormControl>
              {/* a fresh field per type: its search and options are the type's */}
              <HolderPicker key={type} type={type} value={picked} onChange={setPicked} />
            </Box>
          )}
          <FormControl component="fieldset" required sx={{ mb: 2, display: 'flex' }}>
            <FormLabel component="legend">{translate('iam.roles.role')}</FormLabel>
            {roles.isPending && <LinearProgress aria-label={translate('iam.list.loading')} />}
            <RadioGroup value={role} onChange={(event) => setRole(event.target.value)}>
              {(roles.data ?? []).map((candidate) => {
                // a role she does not hold all of here is not hers to give: greyed out, saying who may
                const why = refusal(candidate);
                return (
                  <FormControlLabel
                    key={candidate.id}
                    value={candidate.id}
                    control={<Radio />}
                    disabled={Boolean(why)}
                    sx={{ alignItems: 'flex-start', mb: 0.5, '& .MuiRadio-root': { pt: 0.5 } }}
                    label={
                      <>
                        {candidate.name}
                        <Typography variant="body2" color="text.secondary" component="span" sx={{ display: 'block' }}>
                          {candidate.description}
                        </Typography>
                        {why && (
                          <Typography variant="body2" color="text.secondary" component="span" sx={{ display: 'block', fontStyle: 'italic' }}>
                            {why}
                          </Typography>
                        )}
                      </>
                    }
                  />
                );
              })}
            </RadioGroup>
          </FormControl>
          <FormControl component="fieldset">
            <FormLabel component="legend">{translate('iam.roles.over')}</FormLabel>
            <RadioGroup value={over} onChange={(event) => setOver(event.target.value as 'subtree' | 'domain')}>
              <FormControlLabel
                value="subtree"
                control={<Radio />}
                label={translate('iam.roles.overSubtreeChoice', { company: company ? companyLabel(company) : '' })}
              />
              <FormControlLabel
                value="domain"
                control={<Radio />}
                disabled={!domain}
                label={translate('iam.roles.overDomainChoice', { place: company && domain ? placeOf(translate, company, domain) : '' })}
              />
            </RadioGroup>
          </FormControl>
          {error && (
            <Alert severity="error" role="alert" sx={{ mt: 2 }}>
              {error}
            </Alert>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={saving}>
            {translate('iam.actions.cancel')}
          </Button>
          <Button type="submit" variant="contained" disabled={saving || !role || !chosen || Boolean(roleRefused)}>
            {translate('iam.roles.assign')}
          </Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}
