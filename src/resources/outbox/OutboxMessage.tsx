import { Alert, Box, LinearProgress, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useRecordContext, useTranslate } from 'react-admin';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import { useSession } from '../../session/useSession';
import { formatDateTime } from '../generic/dateTime';

interface Message {
  id: string;
  recipient: string;
  subject: string;
  sentAt: string | null;
  error: string | null;
  text: string;
}

/** An outbox row opened: the message as sent (its text: the HTML says the same), and what the mail server answered. */
export default function OutboxMessage() {
  const row = useRecordContext<{ id: string }>();
  const translate = useTranslate();
  const { company, domain } = useSession();
  const message = useQuery({
    queryKey: ['outbox', 'message', company?.id, domain?.id, row?.id],
    queryFn: async () =>
      (await httpClient(`${config.apiBase}/companys/${encodeURIComponent(company!.id)}/domainNames/${encodeURIComponent(domain!.id)}/outbox/${encodeURIComponent(String(row!.id))}`)).json as Message,
    enabled: Boolean(row && company && domain),
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
      <Box component="pre" tabIndex={0} aria-label={data.subject} sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', fontFamily: 'inherit', m: 0, p: 1, bgcolor: 'action.hover', borderRadius: 1 }}>
        {data.text}
      </Box>
    </Box>
  );
}
