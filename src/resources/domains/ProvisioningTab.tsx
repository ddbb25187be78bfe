import { useState, type FormEvent } from 'react';
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  IconButton,
  InputAdornment,
  LinearProgress,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Tooltip,
  Typography,
} from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNotify, useTranslate } from 'react-admin';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import type { PathContext } from '../../session/session';
import { formatDateTime } from '../generic/dateTime';
import { DisabledReason } from '../generic/DisabledReason';
import { SecretDialog } from '../generic/SecretDialog';
import { useAllowedAt } from '../userJobs/held';

export interface ScimToken {
  id: string;
  name: string;
  createdAt: string;
  createdBy?: string;
  lastUsedAt?: string | null;
  revokedAt?: string | null;
}

export interface ScimCall {
  id: string;
  at: string;
  method: string;
  path: string;
  status: number;
  tokenId?: string | null;
  clientId?: string | null;
  detail?: string | null;
}

/** How many of the last calls the tab shows. */
const CALLS = 20;
/** A token's name, as long as the provider keeps. */
const NAME_MAX = 100;

const domainApi = ({ companyId, domainId }: PathContext) =>
  `${config.apiBase}/companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}`;

/** Where identity systems send SCIM requests for this domain. */
export const scimBaseUrl = ({ companyId, domainId }: PathContext) =>
  `${window.location.origin}/scim/v2/${encodeURIComponent(companyId)}/${encodeURIComponent(domainId)}`;

const listOf = async <T,>(url: string, count: number): Promise<T[]> =>
  ((await httpClient(`${url}?${new URLSearchParams({ range: JSON.stringify([0, count - 1]) })}`)).json ?? []) as T[];

function BaseUrl({ url }: { url: string }) {
  const translate = useTranslate();
  const [copied, setCopied] = useState<boolean>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  const label = translate('iam.provisioning.baseUrl');
  return (
    <>
      <TextField
        label={label}
        value={url}
        fullWidth
        onFocus={(event) => event.target.select()}
        slotProps={{
          htmlInput: { readOnly: true, style: { fontFamily: 'monospace' } },
          input: {
            endAdornment: (
              <InputAdornment position="end">
                <Tooltip title={translate('iam.provisioning.copyBaseUrl')}>
                  <IconButton aria-label={translate('iam.provisioning.copyBaseUrl')} onClick={copy} edge="end">
                    <ContentCopyIcon />
                  </IconButton>
                </Tooltip>
              </InputAdornment>
            ),
          },
        }}
      />
      {copied !== undefined && (
        <Typography variant="body2" role="status" color={copied ? 'success.main' : 'warning.main'} sx={{ mt: 0.5 }}>
          {translate(copied ? 'iam.secret.copied' : 'iam.secret.copyFailed')}
        </Typography>
      )}
    </>
  );
}

/** New token: its name, then the token once. */
function NewTokenDialog({ open, onClose, onCreated, context }: { open: boolean; onClose: () => void; onCreated: (token: string) => void; context: PathContext }) {
  const translate = useTranslate();
  const [name, setName] = useState('');
  const [sending, setSending] = useState(false);
  const [failure, setFailure] = useState<string>();
  const [touched, setTouched] = useState(false);
  const empty = name.trim() === '';
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (empty) return;
    setSending(true);
    setFailure(undefined);
    try {
      const { json } = await httpClient(`${domainApi(context)}/scimTokens`, { method: 'POST', body: JSON.stringify({ name: name.trim() }) });
      setName('');
      setTouched(false);
      onCreated(String((json as { token: string }).token));
    } catch (error) {
      setFailure((error as Error).message);
    } finally {
      setSending(false);
    }
  };
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="scim-new-token-title" fullWidth maxWidth="sm">
      <form onSubmit={submit} noValidate>
        <DialogTitle id="scim-new-token-title">{translate('iam.provisioning.newToken')}</DialogTitle>
        <DialogContent>
          <DialogContentText sx={{ mb: 2 }}>{translate('iam.provisioning.newTokenHelp')}</DialogContentText>
          <TextField
            autoFocus
            fullWidth
            required
            label={translate('iam.provisioning.tokenName')}
            value={name}
            onChange={(event) => setName(event.target.value)}
            error={touched && empty}
            helperText={touched && empty ? translate('ra.validation.required') : translate('iam.provisioning.tokenNameHelp')}
            slotProps={{ htmlInput: { maxLength: NAME_MAX } }}
          />
          {failure && (
            <Alert severity="error" sx={{ mt: 2 }}>
              {failure}
            </Alert>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>{translate('ra.action.cancel')}</Button>
          <Button type="submit" variant="contained" disabled={sending}>
            {translate('iam.provisioning.create')}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

function RevokeDialog({ token, onClose, onConfirm, failure, sending }: { token?: ScimToken; onClose: () => void; onConfirm: () => void; failure?: string; sending: boolean }) {
  const translate = useTranslate();
  return (
    <Dialog open={Boolean(token)} onClose={onClose} aria-labelledby="scim-revoke-title" aria-describedby="scim-revoke-text">
      <DialogTitle id="scim-revoke-title">{translate('iam.provisioning.revokeTitle', { name: token?.name ?? '' })}</DialogTitle>
      <DialogContent>
        <DialogContentText id="scim-revoke-text">{translate('iam.provisioning.revokeText')}</DialogContentText>
        {failure && (
          <Alert severity="error" sx={{ mt: 2 }}>
            {failure}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('ra.action.cancel')}</Button>
        <Button color="error" variant="contained" onClick={onConfirm} disabled={sending}>
          {translate('iam.provisioning.revoke')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

const dash = (value?: string | null) => (value ? formatDateTime(value) : '—');

/**
 * The domain screen's Provisioning tab (docs/CONSOLE.md, "Provisioning (SCIM)"): the domain's SCIM
 * base URL, its tokens (New token shows the token once; Revoke after a confirmation) and the last
 * SCIM calls. Reading needs `scim:read` at the domain, tokens `scim:write`: without them the tab
 * says which roles would allow it, and reads nothing it may not.
 */
export default function ProvisioningTab({ context }: { context: PathContext }) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const allowed = useAllowedAt(context, ['scim:read', 'scim:write']);
  const readable = allowed['scim:read'].allowed;
  const writable = allowed['scim:write'];
  const tokensKey = ['scimTokens', context.companyId, context.domainId];
  const callsKey = ['scimCalls', context.companyId, context.domainId];
  const tokens = useQuery({ queryKey: tokensKey, queryFn: () => listOf<ScimToken>(`${domainApi(context)}/scimTokens`, 100), enabled: readable, retry: false });
  const calls = useQuery({ queryKey: callsKey, queryFn: () => listOf<ScimCall>(`${domainApi(context)}/scimCalls`, CALLS), enabled: readable, retry: false });
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<string>();
  const [revoking, setRevoking] = useState<ScimToken>();
  const [revokeFailure, setRevokeFailure] = useState<string>();
  const [sending, setSending] = useState(false);

  const revoke = async () => {
    if (!revoking) return;
    setSending(true);
    setRevokeFailure(undefined);
    try {
      await httpClient(`${domainApi(context)}/scimTokens/${encodeURIComponent(revoking.id)}`, { method: 'DELETE' });
      notify('iam.provisioning.revoked', { type: 'info', messageArgs: { name: revoking.name } });
      setRevoking(undefined);
      await queryClient.invalidateQueries({ queryKey: tokensKey });
    } catch (error) {
      setRevokeFailure((error as Error).message);
    } finally {
      setSending(false);
    }
  };

  return (
    <Box>
      <Typography variant="h6" component="h2" gutterBottom>
        {translate('iam.provisioning.title')}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        {translate('iam.provisioning.help')}
      </Typography>
      <BaseUrl url={scimBaseUrl(context)} />

      {allowed['scim:read'].reason && (
        <Alert severity="info" sx={{ mt: 3 }}>
          {translate('iam.provisioning.notReadable', { reason: allowed['scim:read'].reason })}
        </Alert>
      )}

      {readable && (
        <>
          <Stack direction="row" sx={{ mt: 3, mb: 1, alignItems: 'center', justifyContent: 'space-between' }}>
            <Typography variant="subtitle1" component="h3" id="scim-tokens-heading">
              {translate('iam.provisioning.tokens')}
            </Typography>
            <DisabledReason reason={writable.reason}>
              <Button variant="contained" disabled={!writable.allowed} onClick={() => setCreating(true)}>
                {translate('iam.provisioning.newToken')}
              </Button>
            </DisabledReason>
          </Stack>
          {tokens.isPending && <LinearProgress aria-label={translate('iam.provisioning.loadingTokens')} />}
          {tokens.error && <Alert severity="error">{translate('iam.list.failed', { message: tokens.error.message })}</Alert>}
          {tokens.data?.length === 0 && (
            <Typography color="text.secondary" role="status">
              {translate('iam.provisioning.noTokens')}
            </Typography>
          )}
          {tokens.data && tokens.data.length > 0 && (
            <TableContainer>
              <Table size="small" aria-labelledby="scim-tokens-heading">
                <TableHead>
                  <TableRow>
                    <TableCell>{translate('iam.provisioning.columns.name')}</TableCell>
                    <TableCell>{translate('iam.provisioning.columns.createdAt')}</TableCell>
                    <TableCell>{translate('iam.provisioning.columns.lastUsedAt')}</TableCell>
                    <TableCell>{translate('iam.provisioning.columns.revokedAt')}</TableCell>
                    <TableCell>
                      <Box component="span" sx={visuallyHidden}>
                        {translate('iam.provisioning.columns.actions')}
                      </Box>
                    </TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {tokens.data.map((token) => (
                    <TableRow key={token.id}>
                      <TableCell sx={{ overflowWrap: 'anywhere' }}>{token.name}</TableCell>
                      <TableCell>{dash(token.createdAt)}</TableCell>
                      <TableCell>{token.lastUsedAt ? formatDateTime(token.lastUsedAt) : translate('iam.provisioning.neverUsed')}</TableCell>
                      <TableCell>{dash(token.revokedAt)}</TableCell>
                      <TableCell align="right">
                        {!token.revokedAt && (
                          <DisabledReason reason={writable.reason}>
                            <Button
                              color="error"
                              size="small"
                              disabled={!writable.allowed}
                              aria-label={translate('iam.provisioning.revokeNamed', { name: token.name })}
                              onClick={() => {
                                setRevokeFailure(undefined);
                                setRevoking(token);
                              }}
                            >
                              {translate('iam.provisioning.revoke')}
                            </Button>
                          </DisabledReason>
                        )}
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
          )}

          <Stack direction="row" sx={{ mt: 3, mb: 1, alignItems: 'center', justifyContent: 'space-between' }}>
            <Typography variant="subtitle1" component="h3" id="scim-calls-heading">
              {translate('iam.provisioning.calls')}
            </Typography>
            <Button onClick={() => void calls.refetch()}>{translate('iam.userJobs.refresh')}</Button>
          </Stack>
          {calls.isPending && <LinearProgress aria-label={translate('iam.provisioning.loadingCalls')} />}
          {calls.error && <Alert severity="error">{translate('iam.list.failed', { message: calls.error.message })}</Alert>}
          {calls.data?.length === 0 && (
            <Typography color="text.secondary" role="status">
              {translate('iam.provisioning.noCalls')}
            </Typography>
          )}
          {calls.data && calls.data.length > 0 && (
            <TableContainer>
              <Table size="small" aria-labelledby="scim-calls-heading">
                <TableHead>
                  <TableRow>
                    <TableCell>{translate('iam.provisioning.columns.at')}</TableCell>
                    <TableCell>{translate('iam.provisioning.columns.method')}</TableCell>
                    <TableCell>{translate('iam.provisioning.columns.path')}</TableCell>
                    <TableCell align="right">{translate('iam.provisioning.columns.status')}</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {calls.data.map((call) => (
                    <TableRow key={call.id}>
                      <TableCell>{formatDateTime(call.at)}</TableCell>
                      <TableCell sx={{ fontFamily: 'monospace' }}>{call.method}</TableCell>
                      <TableCell sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }} title={call.detail ?? undefined}>
                        {call.path}
                      </TableCell>
                      <TableCell align="right" sx={{ color: call.status >= 400 ? 'error.main' : undefined }}>
                        {call.status}
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
          )}
        </>
      )}

      <NewTokenDialog
        open={creating}
        context={context}
        onClose={() => setCreating(false)}
        onCreated={(token) => {
          setCreating(false);
          setSecret(token);
          void queryClient.invalidateQueries({ queryKey: tokensKey });
        }}
      />
      <SecretDialog labelKey="iam.provisioning.tokenLabel" secret={secret} onClose={() => setSecret(undefined)} />
      <RevokeDialog token={revoking} onClose={() => setRevoking(undefined)} onConfirm={revoke} failure={revokeFailure} sending={sending} />
    </Box>
  );
}

/** Read by screen readers, not shown (in pixels: in `sx` a 1 is 100%, which would widen the page). */
const visuallyHidden = {
  position: 'absolute',
  width: '1px',
  height: '1px',
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
} as const;
