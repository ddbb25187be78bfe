import { useState } from 'react';
import { Alert, Box, Button, CircularProgress, IconButton, InputAdornment, Stack, TextField, Tooltip, Typography } from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import { Title, useGetOne, useLocation, useNavigate, useNotify, useTranslate, type RaRecord } from 'react-admin';
import { DisabledReason } from '../generic/DisabledReason';
import { goBack } from '../generic/goBack';
import { RecordTabs } from '../generic/RecordTabs';
import { useAllowed } from '../generic/useAllowed';
import { getSession, type PathContext } from '../../session/session';
import { connectionUrl, postJson } from './api';
import { ConnectionSettings } from './ConnectionSettings';
import { EmailDomains } from './EmailDomains';

interface ViewState {
  company?: { id: string };
  domain?: { id: string };
  connection?: RaRecord;
  created?: boolean;
}

/** A read-only address with a Copy button (the callback to register at the identity provider). */
function CopyField({ label, value, id }: { label: string; value: string; id: string }) {
  const translate = useTranslate();
  const [copied, setCopied] = useState<boolean>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <TextField
      id={id}
      label={label}
      value={value}
      fullWidth
      // the whole address, wrapped: its end tells the SAML metadata from the ACS
      multiline
      margin="dense"
      helperText={copied === undefined ? undefined : translate(copied ? 'iam.secret.copied' : 'iam.secret.copyFailed')}
      onFocus={(event) => event.target.select()}
      slotProps={{
        htmlInput: { readOnly: true, style: { fontFamily: 'monospace', wordBreak: 'break-all' } },
        input: {
          endAdornment: (
            <InputAdornment position="end">
              <Tooltip title={translate('iam.connections.copy', { field: label })}>
                <IconButton aria-label={translate('iam.connections.copy', { field: label })} onClick={copy} edge="end">
                  <ContentCopyIcon />
                </IconButton>
              </Tooltip>
            </InputAdornment>
          ),
        },
      }}
    />
  );
}

/**
 * Test sign-in (docs/CONSOLE.md, "Connections"): the provider starts a flow through the connection
 * and answers where it begins; it runs in a new window and ends on the provider's page showing the
 * claims it mapped, signing nobody in and creating nobody.
 */
export function TestSignInButton({ context, connectionId }: { context: PathContext; connectionId: string }) {
  const translate = useTranslate();
  const notify = useNotify();
  const [pending, setPending] = useState(false);
  const { allowed, reason } = useAllowed('edit');
  const test = async () => {
    setPending(true);
    try {
      const { url } = await postJson<{ url: string }>(`${connectionUrl(context, connectionId)}/test`);
      window.open(url, '_blank', 'noopener');
    } catch (error) {
      notify('iam.connections.refused', { type: 'error', messageArgs: { message: (error as Error).message } });
    } finally {
      setPending(false);
    }
  };
  return (
    <DisabledReason reason={reason}>
      <Button
        variant="outlined"
        startIcon={pending ? <CircularProgress size={16} color="inherit" /> : <OpenInNewIcon />}
        disabled={pending || !allowed}
        onClick={test}
      >
        {translate('iam.connections.test')}
      </Button>
    </DisabledReason>
  );
}

/** What the identity provider must be told: where to send people back, or the SAML service provider's metadata. */
function Addresses({ connection, context }: { connection: RaRecord; context: PathContext }) {
  const translate = useTranslate();
  const saml = connection.protocol === 'saml';
  return (
    <Stack spacing={1}>
      <Typography>{translate(saml ? 'iam.connections.addresses.samlIntro' : 'iam.connections.addresses.intro')}</Typography>
      {saml ? (
        <>
          <CopyField id="connection-samlMetadataServedAt" label={translate('resources.connections.fields.samlMetadataServedAt')} value={String(connection.samlMetadataServedAt ?? '')} />
          <CopyField
            id="connection-samlAcs"
            label={translate('iam.connections.addresses.acs')}
            value={String(connection.samlMetadataServedAt ?? '').replace(/\/metadata$/, '/acs')}
          />
        </>
      ) : (
        <CopyField id="connection-callbackUrl" label={translate('resources.connections.fields.callbackUrl')} value={String(connection.callbackUrl ?? '')} />
      )}
      <Typography variant="body2" color="text.secondary">
        {translate('iam.connections.testHelp')}
      </Typography>
      <Box>
        <TestSignInButton context={context} connectionId={String(connection.id)} />
      </Box>
    </Stack>
  );
}

/**
 * /connections-view: a connection's screen (docs/CONSOLE.md, "Connections"): Sign-in (its addresses
 * to copy and Test sign-in), E-mail domains, Settings and History.
 */
export default function ConnectionView() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const state = (useLocation().state ?? {}) as ViewState;
  const session = getSession();
  const context: PathContext = {
    companyId: state.company?.id ?? session.company?.id ?? '',
    domainId: state.domain?.id ?? session.domain?.id ?? '',
  };
  const id = state.connection?.id;
  // the stored record, fresh after an edit; the list's row until it answers
  const { data } = useGetOne<RaRecord>(
    'connections',
    { id: id!, meta: { pathContext: context } },
    { enabled: id !== undefined, placeholderData: state.connection },
  );
  const connection = data ?? state.connection;
  const close = () => goBack(navigate, '/connections');

  if (!connection) {
    return (
      <>
        <Title title={translate('iam.connections.viewTitle')} />
        <Alert severity="info" sx={{ mt: 2 }} action={<Button onClick={() => navigate('/connections')}>{translate('iam.errors.backToList')}</Button>}>
          {translate('iam.errors.noContext')}
        </Alert>
      </>
    );
  }

  return (
    <>
      {state.created && (
        <Alert severity="success" sx={{ mt: 2, maxWidth: 960 }}>
          {translate('iam.connections.created')}
        </Alert>
      )}
      <RecordTabs
        idPrefix="connection"
        title={String(connection.displayName || translate('iam.connections.viewTitle'))}
        record={connection}
        context={context}
        tabs={[
          { id: 'signIn', labelKey: 'iam.connections.tabs.signIn', content: <Addresses connection={connection} context={context} /> },
          { id: 'emailDomains', labelKey: 'iam.connections.tabs.emailDomains', content: <EmailDomains context={context} connectionId={String(connection.id)} /> },
          {
            id: 'settings',
            labelKey: 'iam.connections.tabs.settings',
            framed: true,
            keepMounted: true,
            content: <ConnectionSettings connection={connection} context={context} onClose={close} />,
          },
        ]}
      />
    </>
  );
}
