import { useState } from 'react';
import {
  Alert,
  Box,
  Button,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { Confirm, useNotify, useTranslate } from 'react-admin';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { httpClient } from '../../http/httpClient';
import type { PathContext } from '../../session/session';
import { DisabledReason } from '../generic/DisabledReason';
import { formatDateTime } from '../generic/dateTime';
import { ColorChip } from '../generic/FieldValue';
import { useAllowed } from '../generic/useAllowed';
import { connectionUrl, postJson, type EmailDomainClaim } from './api';

type Pending = { kind: 'confirm' | 'remove'; emailDomain: string } | undefined;

/**
 * A connection's claimed e-mail domains (docs/CONSOLE.md, "Connections"): an address of a verified
 * domain goes straight to this connection at sign-in. A claim is verified by the TXT record it shows
 * (Verify by DNS) or by an administrator's confirmation; until then it routes nobody.
 */
export function EmailDomains({ context, connectionId }: { context: PathContext; connectionId: string }) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const { allowed, reason } = useAllowed('edit');
  const base = `${connectionUrl(context, connectionId)}/emailDomains`;
  const key = ['connections', 'emailDomains', base];
  const { data: claims = [], error, isPending } = useQuery({
    queryKey: key,
    queryFn: async () => (await httpClient(base)).json as EmailDomainClaim[],
  });
  const [emailDomain, setEmailDomain] = useState('');
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<Pending>();

  const run = async (call: () => Promise<unknown>, done?: string, args?: object) => {
    setBusy(true);
    try {
      await call();
      if (done) notify(done, { type: 'info', messageArgs: args });
      return true;
    } catch (failure) {
      // the provider's sentence: "no TXT record found", a domain claimed elsewhere, a lesser role
      notify('iam.connections.refused', { type: 'error', messageArgs: { message: (failure as Error).message } });
      return false;
    } finally {
      setBusy(false);
      setPending(undefined);
      await queryClient.invalidateQueries({ queryKey: key });
    }
  };

  const add = async (event: React.FormEvent) => {
    event.preventDefault();
    const domain = emailDomain.trim().toLowerCase();
    if (!domain) return;
    if (await run(() => postJson(base, { emailDomain: domain }))) setEmailDomain('');
  };
  const one = (domain: string) => `${base}/${encodeURIComponent(domain)}`;
  const verify = (domain: string, method: 'dns' | 'confirm') =>
    run(() => postJson(`${one(domain)}/verify`, { method }), 'iam.connections.domains.verified', { domain });

  return (
    <Stack spacing={2}>
      <Typography>{translate('iam.connections.domains.intro')}</Typography>
      {error && (
        <Alert severity="error" role="alert">
          {translate('iam.connections.refused', { message: (error as Error).message })}
        </Alert>
      )}
      <Box component="form" onSubmit={add} sx={{ display: 'flex', gap: 1, alignItems: 'flex-start', flexWrap: 'wrap' }}>
        <TextField
          id="connection-emailDomain"
          size="small"
          label={translate('iam.connections.domains.emailDomain')}
          placeholder="example.com"
          value={emailDomain}
          onChange={(event) => setEmailDomain(event.target.value)}
          disabled={!allowed}
          slotProps={{ htmlInput: { spellCheck: false, autoCapitalize: 'none' } }}
        />
        <DisabledReason reason={reason}>
          <Button type="submit" variant="contained" disabled={!allowed || busy || !emailDomain.trim()}>
            {translate('iam.connections.domains.add')}
          </Button>
        </DisabledReason>
      </Box>
      {!isPending && claims.length === 0 && !error && (
        <Typography color="text.secondary" role="status">
          {translate('iam.connections.domains.empty')}
        </Typography>
      )}
      {claims.length > 0 && (
        <Box sx={{ overflowX: 'auto' }}>
          <Table size="small" aria-label={translate('iam.connections.tabs.emailDomains')}>
            <TableHead>
              <TableRow>
                <TableCell>{translate('iam.connections.domains.emailDomain')}</TableCell>
                <TableCell>{translate('iam.connections.domains.state')}</TableCell>
                <TableCell>{translate('iam.connections.domains.actions')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {claims.map((claim) => (
                <TableRow key={claim.emailDomain}>
                  <TableCell sx={{ verticalAlign: 'top' }}>{claim.emailDomain}</TableCell>
                  <TableCell sx={{ verticalAlign: 'top' }}>
                    {claim.verifiedAt ? (
                      <ColorChip color="success">{translate('iam.connections.domains.verifiedAt', { time: formatDateTime(claim.verifiedAt) })}</ColorChip>
                    ) : (
                      <>
                        <ColorChip color="warning">{translate('iam.connections.domains.unverified')}</ColorChip>
                        {claim.txtRecord && (
                          <Typography variant="body2" sx={{ mt: 1 }}>
                            {translate('iam.connections.domains.publish')}
                            <Box component="code" sx={{ display: 'block', mt: 0.5, p: 1, bgcolor: 'action.hover', borderRadius: 1, wordBreak: 'break-all' }}>
                              {claim.txtRecord}
                            </Box>
                          </Typography>
                        )}
                      </>
                    )}
                  </TableCell>
                  <TableCell sx={{ verticalAlign: 'top' }}>
                    <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
                      {!claim.verifiedAt && (
                        <>
                          <DisabledReason reason={reason}>
                            <Button
                              size="small"
                              disabled={!allowed || busy}
                              aria-label={translate('iam.connections.domains.verifyDnsOf', { domain: claim.emailDomain })}
                              onClick={() => verify(claim.emailDomain, 'dns')}
                            >
                              {translate('iam.connections.domains.verifyDns')}
                            </Button>
                          </DisabledReason>
                          <DisabledReason reason={reason}>
                            <Button
                              size="small"
                              disabled={!allowed || busy}
                              aria-label={translate('iam.connections.domains.confirmOf', { domain: claim.emailDomain })}
                              onClick={() => setPending({ kind: 'confirm', emailDomain: claim.emailDomain })}
                            >
                              {translate('iam.connections.domains.confirm')}
                            </Button>
                          </DisabledReason>
                        </>
                      )}
                      <DisabledReason reason={reason}>
                        <Button
                          size="small"
                          color="error"
                          disabled={!allowed || busy}
                          aria-label={translate('iam.connections.domains.removeOf', { domain: claim.emailDomain })}
                          onClick={() => setPending({ kind: 'remove', emailDomain: claim.emailDomain })}
                        >
                          {translate('iam.connections.domains.remove')}
                        </Button>
                      </DisabledReason>
                    </Stack>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Box>
      )}
      <Confirm
        isOpen={pending !== undefined}
        loading={busy}
        title={pending?.kind === 'remove' ? 'iam.connections.domains.removeTitle' : 'iam.connections.domains.confirmTitle'}
        content={pending?.kind === 'remove' ? 'iam.connections.domains.removeContent' : 'iam.connections.domains.confirmContent'}
        translateOptions={{ domain: pending?.emailDomain ?? '' }}
        confirm={pending?.kind === 'remove' ? 'iam.connections.domains.remove' : 'iam.connections.domains.confirm'}
        cancel="iam.actions.cancel"
        onConfirm={() =>
          pending?.kind === 'remove'
            ? run(() => httpClient(one(pending.emailDomain), { method: 'DELETE' }), 'iam.connections.domains.removed', { domain: pending.emailDomain })
            : pending && verify(pending.emailDomain, 'confirm')
        }
        onClose={() => setPending(undefined)}
      />
    </Stack>
  );
}
