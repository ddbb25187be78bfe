import { useState } from 'react';
import { Alert, Box, Button, LinearProgress, Typography } from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Confirm, useNotify, useRecordContext, useTranslate } from 'react-admin';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import { useSession } from '../../session/useSession';
import { DisabledReason } from '../generic/DisabledReason';
import { useAllowedOn } from '../generic/principalRights';
import { formatDateTime } from '../generic/dateTime';
import { sendAndSay } from '../users/sendLink';

interface Message {
  id: string;
  recipient: string;
  subject: string;
  purpose: string;
  userId: string | null;
  sentAt: string | null;
  error: string | null;
  /** Only for whoever holds users:write: it holds the live link (docs/CONSOLE.md). */
  text?: string;
}

/**
 * Resend (POST …/outbox/{id}/resend, users:recover): a fresh link of the message's kind to the person
 * it was for; greyed out, with the provider's reason, for a person the caller holds less than.
 */
function ResendButton({ message, base }: { message: Message; base: string }) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const { company, domain } = useSession();
  const context = { companyId: company?.id ?? '', domainId: domain?.id ?? '' };
  // whoever sees the outbox holds users:recover; containment narrows it to the people she may act on
  const allowedOn = useAllowedOn({ allowed: true }, context, 'users', message.userId ?? '');
  // a link proving an account for an upstream identity is bound to the browser that asked for it: she asks again there
  const may = message.purpose === 'link-identity' ? { allowed: false, reason: translate('iam.outbox.notResent') } : allowedOn;
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!message.userId) return null;
  const resend = async () => {
    setBusy(true);
    try {
      if (await sendAndSay(`${base}/resend`, notify)) {
        await queryClient.invalidateQueries({ queryKey: ['outbox'] });
        await queryClient.invalidateQueries({ queryKey: ['outbox', 'message'] });
      }
    } finally {
      setBusy(false);
      setOpen(false);
    }
  };
  return (
    <>
      <DisabledReason reason={may.reason}>
        <Button variant="outlined" size="small" sx={{ mt: 1 }} disabled={!may.allowed || busy} onClick={() => setOpen(true)}>
          {translate('iam.outbox.resend')}
        </Button>
      </DisabledReason>
      <Confirm
        isOpen={open}
        loading={busy}
        title="iam.outbox.resendTitle"
        content="iam.outbox.resendContent"
        translateOptions={{ recipient: message.recipient, purpose: translate(`iam.outbox.purposes.${message.purpose}`).toLowerCase() }}
        confirm="iam.emailActions.send"
        cancel="iam.actions.cancel"
        onConfirm={resend}
        onClose={() => setOpen(false)}
      />
    </>
  );
}

/**
 * An outbox row opened: to whom, whether it was sent, waits, or failed and why, and Resend. The
 * message's text (the HTML says the same) only for whoever holds users:write: it holds the live link,
 * and the provider does not send it to anyone else (Support sees the rest).
 */
export default function OutboxMessage() {
  const row = useRecordContext<{ id: string }>();
  const translate = useTranslate();
  const { company, domain } = useSession();
  const base = company && domain && row ? `${config.apiBase}/companys/${encodeURIComponent(company.id)}/domainNames/${encodeURIComponent(domain.id)}/outbox/${encodeURIComponent(String(row.id))}` : '';
  const message = useQuery({
    queryKey: ['outbox', 'message', company?.id, domain?.id, row?.id],
    queryFn: async () => (await httpClient(base)).json as Message,
    enabled: Boolean(base),
  });
  if (message.isPending) return <LinearProgress aria-label={translate('iam.list.loading')} />;
  if (message.error) return <Alert severity="error">{(message.error as Error).message}</Alert>;
  const { data } = message;
  return (
    <Box sx={{ py: 1, maxWidth: 900 }}>
      <Typography variant="body2">{translate('iam.outbox.to', { recipient: data.recipient })}</Typography>
      <Typography variant="body2" color={data.error ? 'error' : 'text.secondary'}>
        {data.error
          ? translate('iam.outbox.failed', { error: data.error })
          : data.sentAt
            ? translate('iam.outbox.sent', { at: formatDateTime(data.sentAt) })
            : translate('iam.outbox.waiting')}
      </Typography>
      <Typography variant="subtitle2" component="h3" sx={{ mt: 1 }}>
        {data.subject}
      </Typography>
      {data.text === undefined ? (
        <Typography variant="body2" color="text.secondary">
          {translate('iam.outbox.withoutText')}
        </Typography>
      ) : (
        <Box component="pre" tabIndex={0} aria-label={data.subject} sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', fontFamily: 'inherit', m: 0, p: 1, bgcolor: 'action.hover', borderRadius: 1 }}>
          {data.text}
        </Box>
      )}
      <ResendButton message={data} base={base} />
    </Box>
  );
}
