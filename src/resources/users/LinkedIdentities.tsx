import { useState } from 'react';
import { Alert, Box, Button, LinearProgress, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import LinkOffIcon from '@mui/icons-material/LinkOff';
import { Confirm, useNotify, useTranslate } from 'react-admin';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import type { PathContext } from '../../session/session';
import { formatDateTime } from '../generic/dateTime';
import { DisabledReason } from '../generic/DisabledReason';
import { useAllowed } from '../generic/useAllowed';
import type { RecordTabProps } from '../types';

/** An account at an upstream identity provider linked to this user (GET …/users/{id}/identities). */
export interface LinkedIdentity {
  id: string;
  connectionId: string;
  connectionName?: string;
  protocol?: string;
  subject: string;
  email?: string | null;
  createdAt?: string;
  lastUsedAt?: string | null;
}

const identitiesUrl = ({ companyId, domainId }: PathContext, userId: string) =>
  `${config.apiBase}/companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/users/${encodeURIComponent(userId)}/identities`;

/**
 * The user screen's Linked identities tab (docs/CONSOLE.md, "Linked identities"): the accounts at
 * upstream identity providers she signs in with (connection, subject, e-mail, last used), each with
 * Unlink after a confirmation. Unlinking needs users:write and, as every write to a person, the
 * provider's containment rule: its refusal (a higher-ranked account) shows as a notification.
 */
export default function LinkedIdentities({ record, context }: RecordTabProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const { allowed, reason } = useAllowed('edit', 'users');
  const url = identitiesUrl(context, String(record.id));
  const key = ['users', 'identities', url];
  const { data: identities = [], error, isPending } = useQuery({ queryKey: key, queryFn: async () => (await httpClient(url)).json as LinkedIdentity[] });
  const [unlinking, setUnlinking] = useState<LinkedIdentity>();
  const [busy, setBusy] = useState(false);
  const nameOf = (identity: LinkedIdentity) => identity.connectionName || identity.connectionId;

  const unlink = async () => {
    if (!unlinking) return;
    setBusy(true);
    try {
      await httpClient(`${url}/${encodeURIComponent(unlinking.id)}`, { method: 'DELETE' });
      notify('iam.identities.unlinked', { type: 'info', messageArgs: { connection: nameOf(unlinking) } });
    } catch (failure) {
      notify('iam.identities.refused', { type: 'error', messageArgs: { message: (failure as Error).message } });
    } finally {
      setBusy(false);
      setUnlinking(undefined);
      await queryClient.invalidateQueries({ queryKey: key });
    }
  };

  if (isPending) return <LinearProgress aria-label={translate('iam.list.loading')} />;
  return (
    <>
      {error ? (
        <Alert severity="error" role="alert">
          {translate('iam.identities.refused', { message: (error as Error).message })}
        </Alert>
      ) : identities.length === 0 ? (
        <Typography color="text.secondary" role="status">
          {translate('iam.identities.empty')}
        </Typography>
      ) : (
        <Box sx={{ overflowX: 'auto' }}>
          <Table size="small" aria-label={translate('iam.identities.tab')}>
            <TableHead>
              <TableRow>
                <TableCell>{translate('iam.identities.connection')}</TableCell>
                <TableCell>{translate('iam.identities.subject')}</TableCell>
                <TableCell>{translate('iam.identities.email')}</TableCell>
                <TableCell>{translate('iam.identities.lastUsed')}</TableCell>
                <TableCell>{translate('iam.identities.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {identities.map((identity) => (
                <TableRow key={identity.id}>
                  <TableCell>{nameOf(identity)}</TableCell>
                  <TableCell sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>{identity.subject}</TableCell>
                  <TableCell>{identity.email ?? ''}</TableCell>
                  <TableCell>
                    {identity.lastUsedAt ? <time dateTime={identity.lastUsedAt}>{formatDateTime(identity.lastUsedAt)}</time> : translate('iam.identities.never')}
                  </TableCell>
                  <TableCell>
                    <DisabledReason reason={reason}>
                      <Button
                        size="small"
                        color="error"
                        startIcon={<LinkOffIcon />}
                        disabled={!allowed || busy}
                        aria-label={translate('iam.identities.unlinkOf', { connection: nameOf(identity) })}
                        onClick={() => setUnlinking(identity)}
                      >
                        {translate('iam.identities.unlink')}
                      </Button>
                    </DisabledReason>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Box>
      )}
      <Confirm
        isOpen={unlinking !== undefined}
        loading={busy}
        title="iam.identities.unlinkTitle"
        content="iam.identities.unlinkContent"
        translateOptions={{ connection: unlinking ? nameOf(unlinking) : '', subject: unlinking?.subject ?? '' }}
        confirm="iam.identities.unlink"
        cancel="iam.actions.cancel"
        onConfirm={unlink}
        onClose={() => setUnlinking(undefined)}
      />
    </>
  );
}
