import { useState } from 'react';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle } from '@mui/material';
import GroupAddIcon from '@mui/icons-material/GroupAdd';
import GroupRemoveIcon from '@mui/icons-material/GroupRemove';
import LogoutIcon from '@mui/icons-material/Logout';
import BlockIcon from '@mui/icons-material/Block';
import LockOpenIcon from '@mui/icons-material/LockOpen';
import MailIcon from '@mui/icons-material/EmailOutlined';
import { useQuery } from '@tanstack/react-query';
import {
  AutocompleteInput,
  Confirm,
  Form,
  ReferenceInput,
  useDataProvider,
  useListContext,
  useNotify,
  useRefresh,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import { useWatch } from 'react-hook-form';
import { config } from '../../config';
import type { IamDataProvider } from '../../dataProvider';
import { httpClient } from '../../http/httpClient';
import { getSession } from '../../session/session';
import { DisabledReason } from '../generic/DisabledReason';
import { neededRoles, useAllowed, useRoles, type Allowed } from '../generic/useAllowed';
import { users } from './index';

/** The account actions on many users at once: POST …/users/{action} with { ids }, all or none, answering { changed }. */
const ACCOUNT_ACTIONS = [
  { action: 'signOutEverywhere', icon: <LogoutIcon /> },
  { action: 'block', icon: <BlockIcon /> },
  { action: 'unblock', icon: <LockOpenIcon /> },
  { action: 'sendResetLink', icon: <MailIcon /> },
] as const;
type AccountAction = (typeof ACCOUNT_ACTIONS)[number]['action'];

const usersPath = () => {
  const { company, domain } = getSession();
  return `${config.apiBase}/${users.paths.collection({ companyId: company?.id ?? '', domainId: domain?.id ?? '' })}`;
};

/**
 * users:recover, which sending reset links needs, asked of the provider as the user screen's E-mail
 * panel asks it (react-admin's `recover` is the soft delete's recovery, users:write).
 */
function useMayRecover(): Allowed {
  const translate = useTranslate();
  const { company, domain } = getSession();
  const companyId = company?.id ?? '';
  const domainId = domain?.id ?? '';
  const held = useQuery({
    queryKey: ['auth', 'permissionsAt', companyId, domainId],
    queryFn: async () => ((await httpClient(`${config.apiBase}/me/permissions?${new URLSearchParams({ companyId, domainId })}`)).json as { permissions?: string[] }).permissions ?? [],
  });
  const refused = held.data !== undefined && !held.data.includes('users:recover');
  const roles = useRoles(refused);
  return { allowed: !refused, reason: refused ? neededRoles(translate, roles.data, ['users:recover']) : undefined };
}

/** A bulk action's button: disabled, saying which roles would allow it, when the person's do not. */
function ActionButton({ may, label, icon, onClick, busy }: { may: Allowed; label: string; icon: React.ReactNode; onClick: () => void; busy: boolean }) {
  return (
    <DisabledReason reason={may.reason}>
      <Button size="small" startIcon={icon} disabled={!may.allowed || busy} onClick={onClick}>
        {label}
      </Button>
    </DisabledReason>
  );
}

/** The confirm button of the group dialog, enabled once a group is chosen. */
function GroupSubmit({ label, busy }: { label: string; busy: boolean }) {
  const group = useWatch({ name: 'group' });
  return (
    <Button type="submit" variant="contained" disabled={!group || busy}>
      {label}
    </Button>
  );
}

/**
 * Add the selected users to a group, or remove them from one: the group's member routes, with the
 * whole selection in one call, all or none (docs/CONSOLE.md, "Bulk actions").
 */
function GroupDialog({ mode, onClose }: { mode: 'add' | 'remove'; onClose: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const refresh = useRefresh();
  const dataProvider = useDataProvider<IamDataProvider>();
  const { selectedIds, onUnselectItems } = useListContext();
  const [group, setGroup] = useState<RaRecord | undefined>();
  const [busy, setBusy] = useState(false);
  const count = selectedIds.length;
  const refs = selectedIds.map((id) => ({ id: String(id), type: 'user' as const }));

  const submit = async ({ group: groupId }: Record<string, unknown>) => {
    if (!groupId) return;
    setBusy(true);
    const meta = { pathContext: { parentId: String(groupId) } };
    try {
      if (mode === 'add') await dataProvider.createMany('groupMembers', { data: refs, meta });
      else await dataProvider.deleteMany('groupMembers', { ids: selectedIds, meta: { ...meta, body: refs } });
      const name = String(group?.displayName || groupId);
      notify(mode === 'add' ? 'iam.bulk.added' : 'iam.bulk.removed', { type: 'info', messageArgs: { smart_count: count, group: name } });
      onUnselectItems();
      refresh();
      onClose();
    } catch (error) {
      notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
    } finally {
      setBusy(false);
    }
  };

  const action = translate(mode === 'add' ? 'iam.bulk.addToGroup' : 'iam.bulk.removeFromGroup');
  return (
    <Dialog open onClose={onClose} aria-labelledby="bulk-group-title" fullWidth maxWidth="xs">
      <Form onSubmit={submit} record={{}}>
        <DialogTitle id="bulk-group-title">{translate(mode === 'add' ? 'iam.bulk.addTitle' : 'iam.bulk.removeTitle', { smart_count: count })}</DialogTitle>
        <DialogContent>
          <ReferenceInput source="group" reference="groups" sort={{ field: 'displayName', order: 'ASC' }}>
            <AutocompleteInput
              optionText="displayName"
              label={translate('iam.bulk.group')}
              onChange={(_value, record) => setGroup(record as RaRecord | undefined)}
              fullWidth
              autoFocus
            />
          </ReferenceInput>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{translate('iam.actions.cancel')}</Button>
          <GroupSubmit label={`${action} (${count})`} busy={busy} />
        </DialogActions>
      </Form>
    </Dialog>
  );
}

/**
 * The users list's actions on its selection (docs/CONSOLE.md, "Bulk actions"): Add to group, Remove
 * from group, Sign out everywhere, Block, Unblock, Send reset link. Each asks first, naming how many
 * people, then says how many changed and reads the list again; each is disabled, with the roles
 * that allow it, for a person whose roles do not.
 */
export function UserBulkActions() {
  const translate = useTranslate();
  const notify = useNotify();
  const refresh = useRefresh();
  const { selectedIds, onUnselectItems } = useListContext();
  const [groupMode, setGroupMode] = useState<'add' | 'remove' | undefined>();
  const [asking, setAsking] = useState<AccountAction | undefined>();
  const [shown, setShown] = useState<AccountAction>('block');
  const [busy, setBusy] = useState(false);
  const groups = useAllowed('create', 'groupMembers');
  const may: Record<AccountAction, Allowed> = {
    signOutEverywhere: useAllowed('revoke', 'sessions'),
    block: useAllowed('block', 'users'),
    unblock: useAllowed('block', 'users'),
    sendResetLink: useMayRecover(),
  };
  const count = selectedIds.length;

  const run = async (action: AccountAction) => {
    setBusy(true);
    try {
      const { json } = await httpClient(`${usersPath()}/${action}`, { method: 'POST', body: JSON.stringify({ ids: selectedIds.map(String) }) });
      const changed = Array.isArray((json as { changed?: unknown })?.changed) ? (json as { changed: unknown[] }).changed.length : 0;
      notify(`iam.bulk.done.${action}`, { type: 'info', messageArgs: { smart_count: changed } });
      onUnselectItems();
      refresh();
    } catch (error) {
      notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
    } finally {
      setBusy(false);
      setAsking(undefined);
    }
  };

  const ask = (action: AccountAction) => {
    setShown(action);
    setAsking(action);
  };

  return (
    <>
      <ActionButton may={groups} label={translate('iam.bulk.addToGroup')} icon={<GroupAddIcon />} busy={busy} onClick={() => setGroupMode('add')} />
      <ActionButton may={groups} label={translate('iam.bulk.removeFromGroup')} icon={<GroupRemoveIcon />} busy={busy} onClick={() => setGroupMode('remove')} />
      {ACCOUNT_ACTIONS.map(({ action, icon }) => (
        <ActionButton key={action} may={may[action]} label={translate(`iam.bulk.${action}`)} icon={icon} busy={busy} onClick={() => ask(action)} />
      ))}
      {groupMode && <GroupDialog mode={groupMode} onClose={() => setGroupMode(undefined)} />}
      <Confirm
        isOpen={asking !== undefined}
        loading={busy}
        title={`iam.bulk.confirm.${shown}`}
        content={`iam.bulk.content.${shown}`}
        translateOptions={{ smart_count: count }}
        confirm={`iam.bulk.${shown}`}
        cancel="iam.actions.cancel"
        onConfirm={() => run(shown)}
        onClose={() => setAsking(undefined)}
      />
    </>
  );
}
