import { useState } from 'react';
import { Alert, Box, Button, Card, CardContent, LinearProgress, Stack, Typography } from '@mui/material';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Confirm, useNotify, useTranslate } from 'react-admin';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import type { PathContext } from '../../session/session';
import { formatDateTime } from '../generic/dateTime';
import { DisabledReason } from '../generic/DisabledReason';
import { useAllowedOn } from '../generic/principalRights';
import { useAllowed } from '../generic/useAllowed';
import type { UserPanelProps } from './UserPanels';

/** One second factor as GET …/users/{u}/factors lists it: never a secret. */
interface Factor {
  id: string;
  type: 'totp' | 'webauthn' | 'recovery';
  label: string;
  createdAt: string;
  lastUsedAt: string | null;
  remaining?: number;
}

const factorsUrl = ({ companyId, domainId }: PathContext, userId: string) =>
  `${config.apiBase}/companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/users/${encodeURIComponent(userId)}/factors`;

/**
 * The user screen's Second factors panel (docs/CONSOLE.md, "Multi-factor authentication and the
 * account page"): what the person has enrolled (authenticator apps, passkeys and security keys,
 * recovery codes) and, for whoever holds users:write, Reset of one factor or all, confirmed first.
 * The person enrols her own on the provider's account page (/account).
 */
export default function Factors({ user, context }: UserPanelProps) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const userId = String(user.id);
  const name = String(user.displayName || user.username || user.id);
  const key = ['users', 'factors', context.companyId, context.domainId, userId];
  const { data: factors, error, isPending } = useQuery({ queryKey: key, queryFn: async () => (await httpClient(factorsUrl(context, userId))).json as Factor[] });
  const write = useAllowedOn(useAllowed('edit', 'users'), context, 'users', userId);
  // the factor to reset: one, or 'all'
  const [resetting, setResetting] = useState<Factor | 'all' | undefined>();
  const reset = useMutation({
    mutationFn: async (which: Factor | 'all') =>
      (await httpClient(which === 'all' ? factorsUrl(context, userId) : `${factorsUrl(context, userId)}/${encodeURIComponent(which.id)}`, { method: 'DELETE' })).json as Factor[],
    onSuccess: async (left) => {
      queryClient.setQueryData(key, left);
      await queryClient.invalidateQueries({ queryKey: ['auditEvents'], refetchType: 'active' });
    },
  });
  const describe = (factor: Factor) => `${translate(`iam.factors.types.${factor.type}`)}: ${factor.label}`;

  const confirmReset = async () => {
    const which = resetting;
    setResetting(undefined);
    if (!which) return;
    try {
      await reset.mutateAsync(which);
      notify('iam.factors.resetDone', { type: 'info', messageArgs: { name } });
    } catch (failure) {
      notify('iam.factors.failed', { type: 'error', messageArgs: { message: (failure as Error).message } });
    }
  };

  return (
    <Card component="section" aria-labelledby="factors-panel-title">
      <CardContent>
        <Typography id="factors-panel-title" variant="h6" component="h2" gutterBottom>
          {translate('iam.factors.title')}
        </Typography>
        {isPending && <LinearProgress aria-label={translate('iam.list.loading')} />}
        {error && (
          <Alert severity="error" role="alert">
            {translate('iam.factors.loadFailed', { message: (error as Error).message })}
          </Alert>
        )}
        {factors && factors.length === 0 && <Typography>{translate('iam.factors.none')}</Typography>}
        {factors && factors.length > 0 && (
          <Box component="ul" sx={{ m: 0, pl: 0, listStyle: 'none', display: 'grid', rowGap: 1.5 }}>
            {factors.map((factor) => (
              <Box component="li" key={factor.id} sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', justifyContent: 'space-between', gap: 1 }}>
                <Box>
                  <Typography sx={{ fontWeight: 500 }}>{describe(factor)}</Typography>
                  <Typography variant="body2" color="text.secondary">
                    {translate('iam.factors.dates', {
                      added: formatDateTime(factor.createdAt),
                      used: factor.lastUsedAt ? formatDateTime(factor.lastUsedAt) : translate('iam.factors.never'),
                    })}
                    {factor.remaining !== undefined && ` · ${translate('iam.factors.remaining', { smart_count: factor.remaining })}`}
                  </Typography>
                </Box>
                <DisabledReason reason={write.reason}>
                  <Button variant="outlined" size="small" disabled={!write.allowed || reset.isPending} onClick={() => setResetting(factor)} aria-label={translate('iam.factors.resetOne', { what: describe(factor) })}>
                    {translate('iam.factors.reset')}
                  </Button>
                </DisabledReason>
              </Box>
            ))}
          </Box>
        )}
        {factors && factors.length > 1 && (
          <Stack direction="row" sx={{ mt: 2 }}>
            <DisabledReason reason={write.reason}>
              <Button variant="outlined" color="error" disabled={!write.allowed || reset.isPending} onClick={() => setResetting('all')}>
                {translate('iam.factors.resetAll')}
              </Button>
            </DisabledReason>
          </Stack>
        )}
      </CardContent>
      <Confirm
        isOpen={resetting !== undefined}
        loading={reset.isPending}
        title="iam.factors.confirmTitle"
        content={resetting === 'all' ? 'iam.factors.confirmAll' : 'iam.factors.confirmOne'}
        translateOptions={{ name, what: resetting && resetting !== 'all' ? describe(resetting) : '' }}
        confirm="iam.factors.reset"
        cancel="iam.actions.cancel"
        onConfirm={confirmReset}
        onClose={() => setResetting(undefined)}
      />
    </Card>
  );
}
