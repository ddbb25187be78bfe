import { useEffect, useState, type ReactNode } from 'react';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Checkbox,
  FormControl,
  FormControlLabel,
  FormGroup,
  FormLabel,
  LinearProgress,
  Stack,
  Typography,
} from '@mui/material';
import LockOpenIcon from '@mui/icons-material/LockOpen';
import BlockIcon from '@mui/icons-material/Block';
import KeyIcon from '@mui/icons-material/Key';
import { Confirm, useNotify, useTranslate } from 'react-admin';
import { useSession } from '../../session/useSession';
import { formatDateTime } from '../generic/dateTime';
import { DisabledReason } from '../generic/DisabledReason';
import { ColorChip } from '../generic/FieldValue';
import { useAllowedOn } from '../generic/principalRights';
import { useAllowed } from '../generic/useAllowed';
import type { ChoiceColor } from '../types';
import { REQUIRED_ACTIONS, useAccountAction, useSignInState, type AccountAction, type SignInState } from './accountState';
import { lastAdministratorReason, useAdministrators } from './administrators';
import { SetPasswordDialog } from './SetPasswordDialog';
import type { UserPanelProps } from './UserPanels';

type Translate = ReturnType<typeof useTranslate>;

/**
 * The account's state, the strongest first: deleted, blocked, locked (by the throttle or the second
 * factor lock), invited (no password yet: she cannot sign in before she chooses one), else active.
 */
function stateOf(deleted: boolean, state: SignInState | undefined): { key: 'deleted' | 'blocked' | 'locked' | 'invited' | 'active'; color?: ChoiceColor } {
  if (deleted) return { key: 'deleted' };
  if (state?.blockedAt) return { key: 'blocked', color: 'error' };
  if (state?.lockedUntil) return { key: 'locked', color: 'warning' };
  if (state?.hasPassword === false) return { key: 'invited', color: 'info' };
  return { key: 'active', color: 'success' };
}

/** The state in words: a chip, then what it means; a block and a lock may hold together. */
function StateWords({ state, deleted, translate }: { state: SignInState; deleted: boolean; translate: Translate }) {
  const { key, color } = stateOf(deleted, state);
  const lines: string[] = [];
  if (deleted) lines.push(translate('iam.accountState.deletedText'));
  if (!deleted && state.blockedAt) lines.push(translate('iam.accountState.blockedText', { since: formatDateTime(state.blockedAt) }));
  if (!deleted && state.lockedUntil) {
    lines.push(
      translate('iam.accountState.lockedText', {
        until: formatDateTime(state.lockedUntil),
        reason: state.lockedBecause ?? translate('iam.accountState.theThrottle'),
      }),
    );
  }
  if (!deleted && lines.length === 0) lines.push(translate(key === 'invited' ? 'iam.accountState.invitedText' : 'iam.accountState.activeText'));
  if (state.failedSignIns > 0) lines.push(translate('iam.accountState.failedSignIns', { smart_count: state.failedSignIns }));
  return (
    <Stack direction="row" spacing={1.5} sx={{ alignItems: 'baseline' }}>
      <ColorChip color={color}>
        {key === 'locked' && state.lockedUntil
          ? translate('iam.accountState.lockedUntil', { until: formatDateTime(state.lockedUntil) })
          : translate(`iam.accountState.states.${key}`)}
      </ColorChip>
      <Box>
        {lines.map((line) => (
          <Typography key={line}>{line}</Typography>
        ))}
      </Box>
    </Stack>
  );
}

/** One line of the summary: its name, then its words. */
function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box sx={{ display: 'flex', flexWrap: 'wrap', columnGap: 1 }}>
      <Typography component="dt" sx={{ fontWeight: 500 }}>
        {label}:
      </Typography>
      <Typography component="dd" sx={{ m: 0 }}>
        {children}
      </Typography>
    </Box>
  );
}

/** The required actions' checkboxes and Save (users:write). */
function RequiredActionsForm({ current, allowed, reason, disabled, onSave }: { current: readonly string[]; allowed: boolean; reason?: string; disabled: boolean; onSave: (actions: string[]) => Promise<unknown> }) {
  const translate = useTranslate();
  const [chosen, setChosen] = useState<readonly string[]>(current);
  const [saving, setSaving] = useState(false);
  const currentKey = [...current].sort().join(',');
  // the provider's answer (after this Save, or a password set with a required change) is what shows
  useEffect(() => setChosen(currentKey ? currentKey.split(',') : []), [currentKey]);
  const changed = [...chosen].sort().join(',') !== currentKey;
  const toggle = (action: string, on: boolean) => setChosen((before) => (on ? [...before, action] : before.filter((one) => one !== action)));

  return (
    <Box
      component="form"
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        setSaving(true);
        try {
          await onSave(REQUIRED_ACTIONS.filter((action) => chosen.includes(action)));
        } finally {
          setSaving(false);
        }
      }}
      sx={{ mt: 2 }}
    >
      <FormControl component="fieldset" disabled={disabled || !allowed || saving}>
        {/* a heading stays readable when its checkboxes are not offered (disabled grey is under 4.5:1) */}
        <FormLabel component="legend" sx={{ '&.Mui-disabled': { color: 'text.secondary' } }}>
          {translate('iam.accountState.requiredActions')}
        </FormLabel>
        <FormGroup row>
          {REQUIRED_ACTIONS.map((action) => (
            <FormControlLabel
              key={action}
              control={<Checkbox checked={chosen.includes(action)} onChange={(event) => toggle(action, event.target.checked)} />}
              label={translate(`iam.accountState.actions.${action}`)}
            />
          ))}
        </FormGroup>
      </FormControl>
      <Box>
        <DisabledReason reason={reason}>
          <Button type="submit" variant="outlined" disabled={disabled || !allowed || saving || !changed}>
            {translate('iam.accountState.saveRequired')}
          </Button>
        </DisabledReason>
      </Box>
    </Box>
  );
}

/**
 * The user screen's Account panel (docs/CONSOLE.md, "Account states"): the account's state in words
 * (active; blocked since; locked by the sign-in throttle until, why, with the failed sign-ins;
 * deleted), whether the e-mail is verified and what she must do at her next sign-in; with Unlock,
 * Block / Unblock, Set password and the required actions, each disabled saying which role would allow
 * it, Block confirmed, each followed by a notification.
 */
export default function AccountPanel({ user, context }: UserPanelProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const userId = String(user.id);
  const name = String(user.displayName || user.username || user.id);
  const deleted = user.status === 'deleted';
  const { data: state, error, isPending } = useSignInState(context, userId);
  const action = useAccountAction(context, userId);
  // what her roles allow here, and only on someone who holds no more than she does
  const unlock = useAllowedOn(useAllowed('unlock', 'users'), context, 'users', userId);
  const block = useAllowedOn(useAllowed('block', 'users'), context, 'users', userId);
  const write = useAllowedOn(useAllowed('edit', 'users'), context, 'users', userId);
  const [confirming, setConfirming] = useState(false);
  const [settingPassword, setSettingPassword] = useState(false);
  const session = useSession();
  const yourself = session.user?.id === userId && session.client?.companyId === context.companyId && session.client?.domain === context.domainId;

  /** Runs an action; says what was done, or what the provider answered. Rejects on refusal. */
  const run = async (what: AccountAction, done?: string) => {
    try {
      await action.mutateAsync(what);
      if (done) notify(done, { type: 'info', messageArgs: { name } });
    } catch (failure) {
      if (what.kind !== 'password') notify('iam.accountState.failed', { type: 'error', messageArgs: { message: (failure as Error).message } });
      throw failure;
    }
  };
  const quietly = (promise: Promise<unknown>) => promise.catch(() => undefined);

  // the provider refuses to block the domain's last active administrator (409): not offered either
  const { data: administrators } = useAdministrators(context, block.allowed && !yourself && !deleted && !state?.blockedAt);
  const lastAdministrator = lastAdministratorReason([userId], administrators, translate);
  const blockReason = yourself ? translate('iam.accountState.cannotBlockYourself') : (block.reason ?? lastAdministrator);
  const busy = action.isPending;

  return (
    <Card component="section" aria-labelledby="account-panel-title">
      <CardContent>
        <Typography id="account-panel-title" variant="h6" component="h2" gutterBottom>
          {translate('iam.accountState.title')}
        </Typography>
        {isPending && <LinearProgress aria-label={translate('iam.list.loading')} />}
        {error && (
          <Alert severity="error" role="alert">
            {translate('iam.accountState.loadFailed', { message: (error as Error).message })}
          </Alert>
        )}
        {state && (
          <>
            <Box component="dl" sx={{ m: 0, display: 'grid', rowGap: 1 }}>
              <Fact label={translate('iam.accountState.state')}>
                <StateWords state={state} deleted={deleted} translate={translate} />
              </Fact>
              <Fact label={translate('iam.accountState.email')}>
                {translate((state.emailVerified ?? user.emailVerified) ? 'iam.accountState.emailVerified' : 'iam.accountState.emailNotVerified')}
              </Fact>
              <Fact label={translate('iam.accountState.nextSignIn')}>
                {state.requiredActions?.length
                  ? state.requiredActions.map((one) => translate(`iam.accountState.actions.${one}`, { _: one })).join(', ')
                  : translate('iam.accountState.nothingRequired')}
              </Fact>
            </Box>
            {!deleted && (
              <>
                <Stack direction="row" sx={{ mt: 2, flexWrap: 'wrap', gap: 1 }}>
                  {state.lockedUntil && (
                    <DisabledReason reason={unlock.reason}>
                      <Button
                        variant="contained"
                        startIcon={<LockOpenIcon />}
                        disabled={!unlock.allowed || busy}
                        onClick={() => quietly(run({ kind: 'unlock' }, 'iam.accountState.unlocked'))}
                      >
                        {translate('iam.accountState.unlock')}
                      </Button>
                    </DisabledReason>
                  )}
                  {state.blockedAt ? (
                    <DisabledReason reason={block.reason}>
                      <Button
                        variant="outlined"
                        disabled={!block.allowed || busy}
                        onClick={() => quietly(run({ kind: 'unblock' }, 'iam.accountState.unblocked'))}
                      >
                        {translate('iam.accountState.unblock')}
                      </Button>
                    </DisabledReason>
                  ) : (
                    <DisabledReason reason={blockReason}>
                      <Button
                        variant="outlined"
                        color="error"
                        startIcon={<BlockIcon />}
                        disabled={!block.allowed || yourself || Boolean(lastAdministrator) || busy}
                        onClick={() => setConfirming(true)}
                      >
                        {translate('iam.accountState.block')}
                      </Button>
                    </DisabledReason>
                  )}
                  <DisabledReason reason={write.reason}>
                    <Button variant="outlined" startIcon={<KeyIcon />} disabled={!write.allowed || busy} onClick={() => setSettingPassword(true)}>
                      {translate('iam.accountState.setPassword')}
                    </Button>
                  </DisabledReason>
                </Stack>
                <RequiredActionsForm
                  current={state.requiredActions ?? []}
                  allowed={write.allowed}
                  reason={write.reason}
                  disabled={busy}
                  onSave={(requiredActions) => quietly(run({ kind: 'requiredActions', requiredActions }, 'iam.accountState.requiredSaved'))}
                />
              </>
            )}
          </>
        )}
      </CardContent>
      <Confirm
        isOpen={confirming}
        loading={busy}
        title="iam.accountState.blockTitle"
        content="iam.accountState.blockContent"
        translateOptions={{ name }}
        confirm="iam.accountState.block"
        cancel="iam.actions.cancel"
        onConfirm={async () => {
          await quietly(run({ kind: 'block' }, 'iam.accountState.blocked'));
          setConfirming(false);
        }}
        onClose={() => setConfirming(false)}
      />
      {settingPassword && (
        <SetPasswordDialog
          name={name}
          context={context}
          onClose={() => setSettingPassword(false)}
          onSet={(authVerification, requireChange) => run({ kind: 'password', authVerification, requireChange })}
        />
      )}
    </Card>
  );
}
