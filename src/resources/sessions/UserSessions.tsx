import { useMemo, useState, type MouseEvent } from 'react';
import { Alert, Box, Button } from '@mui/material';
import LogoutIcon from '@mui/icons-material/Logout';
import BlockIcon from '@mui/icons-material/Block';
import {
  Confirm,
  FunctionField,
  TopToolbar,
  useDataProvider,
  useDelete,
  useDeleteMany,
  useListContext,
  useNotify,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import { useQueryClient } from '@tanstack/react-query';
import type { IamDataProvider, IamMeta } from '../../dataProvider';
import { useSession } from '../../session/useSession';
import { DeclaredList } from '../generic/DeclaredList';
import { DeclaredScope } from '../generic/DeclaredScope';
import { DisabledReason } from '../generic/DisabledReason';
import { useAllowed } from '../generic/useAllowed';
import { sessions } from './index';

/** A failed call, in words (the provider's message, else react-admin's): shown above the table. */
type OnError = (error: unknown) => void;

const applicationOf = (record: RaRecord) => String(record.clientName || record.clientId || '');

/** Revoke on one row, after a confirmation naming the application. */
function RevokeOneButton({ record, meta, onError }: { record: RaRecord; meta: IamMeta; onError: OnError }) {
  const translate = useTranslate();
  const notify = useNotify();
  const { refetch, selectedIds, onSelect } = useListContext();
  const [open, setOpen] = useState(false);
  const [remove, { isPending }] = useDelete();
  const { allowed, reason } = useAllowed('revoke');
  const application = applicationOf(record);

  const revoke = async () => {
    try {
      await remove(sessions.name, { id: record.id, previousData: record, meta }, { mutationMode: 'pessimistic', returnPromise: true });
      onError(undefined);
      notify('iam.sessions.revoked', { type: 'info', messageArgs: { application } });
      onSelect(selectedIds.filter((id) => id !== record.id));
    } catch (error) {
      onError(error);
    } finally {
      setOpen(false);
      refetch();
    }
  };

  return (
    <>
      <DisabledReason reason={reason}>
        <Button
          size="small"
          color="error"
          startIcon={<BlockIcon />}
          disabled={isPending || !allowed}
          aria-label={translate('iam.sessions.revokeOne', { application })}
          onClick={(event: MouseEvent) => {
            event.stopPropagation();
            setOpen(true);
          }}
        >
          {translate('iam.sessions.revoke')}
        </Button>
      </DisabledReason>
      <Confirm
        isOpen={open}
        loading={isPending}
        title="iam.sessions.revokeOneTitle"
        content="iam.sessions.revokeOneContent"
        translateOptions={{ application }}
        confirm="iam.sessions.revoke"
        cancel="iam.actions.cancel"
        onConfirm={revoke}
        onClose={() => setOpen(false)}
      />
    </>
  );
}

/** Revoke of the selected rows in one call, after a confirmation saying how many. */
function RevokeSelectedButton({ meta, onError }: { meta: IamMeta; onError: OnError }) {
  const translate = useTranslate();
  const notify = useNotify();
  const { selectedIds, onUnselectItems, refetch } = useListContext();
  const [open, setOpen] = useState(false);
  const [removeMany, { isPending }] = useDeleteMany();
  const { allowed, reason } = useAllowed('revoke');
  const count = selectedIds.length;

  const revoke = async () => {
    try {
      await removeMany(sessions.name, { ids: selectedIds, meta }, { mutationMode: 'pessimistic', returnPromise: true });
      onError(undefined);
      notify('iam.sessions.revokedMany', { type: 'info', messageArgs: { count, smart_count: count } });
      onUnselectItems();
    } catch (error) {
      onError(error);
    } finally {
      setOpen(false);
      refetch();
    }
  };

  return (
    <>
      <DisabledReason reason={reason}>
        <Button color="error" startIcon={<BlockIcon />} disabled={count === 0 || isPending || !allowed} onClick={() => setOpen(true)}>
          {translate('iam.sessions.revokeSelected')}
        </Button>
      </DisabledReason>
      <Confirm
        isOpen={open}
        loading={isPending}
        title="iam.sessions.revokeManyTitle"
        content="iam.sessions.revokeManyContent"
        translateOptions={{ count, smart_count: count }}
        confirm="iam.sessions.revoke"
        cancel="iam.actions.cancel"
        onConfirm={revoke}
        onClose={() => setOpen(false)}
      />
    </>
  );
}

/**
 * Sign out everywhere: every session of the user ends (POST …/signOutEverywhere). The confirmation
 * says how many; when the user is the signed-in administrator it also says this console's session
 * ends with them.
 */
function SignOutEverywhereButton({ meta, userId, onError }: { meta: IamMeta; userId: string; onError: OnError }) {
  const translate = useTranslate();
  const notify = useNotify();
  const dataProvider = useDataProvider<IamDataProvider>();
  const queryClient = useQueryClient();
  const { total, onUnselectItems, refetch } = useListContext();
  const { user, client, company, domain } = useSession();
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const { allowed, reason } = useAllowed('revoke');
  const count = total ?? 0;
  const yourself = Boolean(user?.id) && user?.id === userId && client?.companyId === company?.id && client?.domain === domain?.id;

  const signOut = async () => {
    setPending(true);
    try {
      const { data } = await dataProvider.action<{ revoked?: number }>(sessions.name, { action: 'signOutEverywhere', meta });
      onError(undefined);
      const revoked = data?.revoked ?? count;
      notify('iam.sessions.signedOut', { type: 'info', messageArgs: { count: revoked, smart_count: revoked } });
      onUnselectItems();
      await queryClient.invalidateQueries({ queryKey: [sessions.name] });
    } catch (error) {
      onError(error);
      refetch();
    } finally {
      setPending(false);
      setOpen(false);
    }
  };

  return (
    <>
      <DisabledReason reason={reason}>
        <Button color="error" variant="outlined" startIcon={<LogoutIcon />} disabled={count === 0 || pending || !allowed} onClick={() => setOpen(true)}>
          {translate('iam.sessions.signOutEverywhere')}
        </Button>
      </DisabledReason>
      <Confirm
        isOpen={open}
        loading={pending}
        title="iam.sessions.signOutTitle"
        content={yourself ? 'iam.sessions.signOutYourself' : 'iam.sessions.signOutContent'}
        translateOptions={{ count, smart_count: count }}
        confirm="iam.sessions.signOutEverywhere"
        cancel="iam.actions.cancel"
        onConfirm={signOut}
        onClose={() => setOpen(false)}
      />
    </>
  );
}

function UserSessionList({ userId }: { userId: string }) {
  const translate = useTranslate();
  const { company, domain } = useSession();
  const [error, setError] = useState<string>();
  const meta = useMemo<IamMeta>(
    () => ({ pathContext: { companyId: company?.id ?? '', domainId: domain?.id ?? '', parentId: userId } }),
    [company?.id, domain?.id, userId],
  );
  const onError: OnError = (failure) =>
    setError(failure ? (failure as Error).message || translate('ra.notification.http_error') : undefined);

  return (
    <>
      {error && (
        <Alert severity="error" role="alert" onClose={() => setError(undefined)} sx={{ mb: 1 }}>
          {translate('iam.sessions.failed', { message: error })}
        </Alert>
      )}
      {/* a narrow tab scrolls the table rather than cutting it */}
      <Box sx={{ overflowX: 'auto' }}>
        <DeclaredList
          embedded
          meta={meta}
          actions={
            <TopToolbar>
              <RevokeSelectedButton meta={meta} onError={onError} />
              <SignOutEverywhereButton meta={meta} userId={userId} onError={onError} />
            </TopToolbar>
          }
          extraColumns={[
            <FunctionField
              key="revoke"
              label={translate('iam.sessions.actions')}
              sortable={false}
              render={(record: RaRecord) => <RevokeOneButton record={record} meta={meta} onError={onError} />}
            />,
          ]}
        />
      </Box>
    </>
  );
}

/**
 * A user's live sessions (docs/CONSOLE.md, "A user's sessions"): application, first and last use,
 * address and browser, with Revoke per row, Revoke of the selection and Sign out everywhere, each
 * confirmed; for the user screen's Sessions tab.
 */
export default function UserSessions({ userId }: { userId: string }) {
  return (
    <DeclaredScope declaration={sessions}>
      <UserSessionList userId={userId} />
    </DeclaredScope>
  );
}
