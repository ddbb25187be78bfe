import { useState } from 'react';
import { Button, Card, CardContent, Stack, Typography } from '@mui/material';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Confirm, useNotify, useTranslate } from 'react-admin';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import { DisabledReason } from '../generic/DisabledReason';
import { useAllowedOn } from '../generic/principalRights';
import { neededRoles, useRoles } from '../generic/useAllowed';
import { useSignInState } from './accountState';
import { sendAndSay } from './sendLink';
import type { UserPanelProps } from './UserPanels';

/** The three messages support staff send, each a POST to …/users/{u}/{route} (users:recover). */
const SENDS = [
  { route: 'sendResetLink', label: 'sendReset', confirm: 'reset' },
  { route: 'sendInvitation', label: 'sendInvitation', confirm: 'invitation' },
  { route: 'sendVerification', label: 'sendVerification', confirm: 'verification' },
] as const;
type Send = (typeof SENDS)[number];

const PERMISSION = 'users:recover';

/**
 * Does the signed-in person hold users:recover over this domain? Asked here, not through canAccess:
 * react-admin's `recover` is the soft delete's recovery (users:write).
 */
function useMayRecover({ companyId, domainId }: UserPanelProps['context']) {
  const translate = useTranslate();
  const held = useQuery({
    queryKey: ['auth', 'permissionsAt', companyId, domainId],
    queryFn: async () => ((await httpClient(`${config.apiBase}/me/permissions?${new URLSearchParams({ companyId, domainId })}`)).json as { permissions?: string[] }).permissions ?? [],
  });
  const refused = held.data !== undefined && !held.data.includes(PERMISSION);
  const roles = useRoles(refused);
  // while the answer is awaited, or when it failed, the provider decides (and says why)
  return { allowed: !refused, reason: refused ? neededRoles(translate, roles.data, [PERMISSION]) : undefined };
}

/**
 * The user screen's E-mail panel (docs/CONSOLE.md, "E-mail, reset links and invitations"): Send
 * reset link, Resend invitation, Send verification e-mail, each confirmed, then a notification
 * saying whether it went to the mail server or waits in the outbox. Whoever sends never sees the
 * link. Resend invitation is for a user without a password: it is not offered once she has one.
 */
export default function EmailActions({ user, context }: UserPanelProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const userId = String(user.id);
  const may = useAllowedOn(useMayRecover(context), context, 'users', userId);
  // the message asked about stays while the dialog closes (its words must not change as it fades)
  const [asking, setAsking] = useState<Send>(SENDS[0]);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  // the Account panel's cached state: once she has a password, the provider refuses an invitation
  // (409); offered when she has none, or when the state cannot be read (the provider decides)
  const { data: state, isError } = useSignInState(context, userId);
  const invite = isError || (state !== undefined && state.hasPassword !== true);
  const sends = SENDS.filter((one) => one.route !== 'sendInvitation' || invite);
  const options = { name: String(user.displayName || user.username || user.id), email: String(user.email ?? '') };
  if (user.status === 'deleted') return null;

  const send = async (what: Send) => {
    setBusy(true);
    try {
      const url = `${config.apiBase}/companys/${encodeURIComponent(context.companyId)}/domainNames/${encodeURIComponent(context.domainId)}/users/${encodeURIComponent(userId)}/${what.route}`;
      if (await sendAndSay(url, notify)) await queryClient.invalidateQueries({ queryKey: ['outbox'], refetchType: 'active' });
    } finally {
      setBusy(false);
      setOpen(false);
    }
  };

  return (
    <Card component="section" aria-labelledby="email-panel-title">
      <CardContent>
        <Typography id="email-panel-title" variant="h6" component="h2" gutterBottom>
          {translate('iam.emailActions.title')}
        </Typography>
        <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1 }}>
          {sends.map((one) => (
            <DisabledReason key={one.route} reason={may.reason}>
              <Button variant="outlined" disabled={!may.allowed || busy} onClick={() => {
                  setAsking(one);
                  setOpen(true);
                }}>
                {translate(`iam.emailActions.${one.label}`)}
              </Button>
            </DisabledReason>
          ))}
        </Stack>
      </CardContent>
      <Confirm
        isOpen={open}
        loading={busy}
        title={`iam.emailActions.${asking.confirm}Title`}
        content={`iam.emailActions.${asking.confirm}Content`}
        translateOptions={options}
        confirm="iam.emailActions.send"
        cancel="iam.actions.cancel"
        onConfirm={() => send(asking)}
        onClose={() => setOpen(false)}
      />
    </Card>
  );
}
