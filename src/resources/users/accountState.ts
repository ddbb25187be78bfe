/**
 * A user's account state and the support agent's actions on it (docs/CONSOLE.md, "Account states"),
 * through the console's HTTP client: GET …/users/{u}/signInState, POST unlock, block, unblock,
 * password, PUT requiredActions. Every action answers the new state, which replaces the cached one;
 * the user's lists, sessions and history are read again.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import type { PathContext } from '../../session/session';

/** What the user is asked to do at her next sign-in (users.required_actions). */
export const REQUIRED_ACTIONS = ['change-password', 'verify-email', 'enrol-mfa'] as const;
export type RequiredAction = (typeof REQUIRED_ACTIONS)[number];

export interface SignInState {
  failedSignIns: number;
  /** ISO time until which the sign-in throttle refuses the account, or null. */
  lockedUntil: string | null;
  /** Why, in the provider's words ("too many failed sign-ins"). */
  lockedBecause: string | null;
  blockedAt?: string | null;
  requiredActions?: string[];
  emailVerified?: boolean;
  /** She has a password: an invitation to choose one is refused (409). */
  hasPassword?: boolean;
}

export type AccountAction =
  | { kind: 'unlock' | 'block' | 'unblock' }
  | { kind: 'password'; authVerification: string; requireChange: boolean }
  | { kind: 'requiredActions'; requiredActions: string[] };

const userUrl = ({ companyId, domainId }: PathContext, userId: string) =>
  `${config.apiBase}/companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/users/${encodeURIComponent(userId)}`;

/** The state's cache key: under `users`, so that whatever reads the users again reads it too. */
export const signInStateKey = (context: PathContext, userId: string) => ['users', 'signInState', context.companyId, context.domainId, userId];

export function useSignInState(context: PathContext, userId: string) {
  return useQuery({
    queryKey: signInStateKey(context, userId),
    queryFn: async () => (await httpClient(`${userUrl(context, userId)}/signInState`)).json as SignInState,
  });
}

function request(context: PathContext, userId: string, action: AccountAction): Promise<{ json: unknown }> {
  const url = userUrl(context, userId);
  switch (action.kind) {
    case 'password':
      // only the browser's bcrypt hash leaves (docs/CONSOLE.md, "Users")
      return httpClient(`${url}/password`, {
        method: 'POST',
        body: JSON.stringify({ authVerification: action.authVerification, requireChange: action.requireChange }),
      });
    case 'requiredActions':
      return httpClient(`${url}/requiredActions`, { method: 'PUT', body: JSON.stringify({ requiredActions: action.requiredActions }) });
    default:
      return httpClient(`${url}/${action.kind}`, { method: 'POST', body: '{}' });
  }
}

/** Runs an account action; on success the answered state is shown at once and what it changed is read again. */
export function useAccountAction(context: PathContext, userId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (action: AccountAction) => (await request(context, userId, action)).json as SignInState,
    onSuccess: (state) => {
      if (state && typeof state === 'object') queryClient.setQueryData(signInStateKey(context, userId), state);
      // a block ends her sessions (and she administers nothing while blocked); every action is a line
      // of her history; lists show Blocked. Not awaited: what was done is said at once.
      void Promise.all(
        ['users', 'sessions', 'auditEvents', 'administrators'].map((resource) =>
          queryClient.invalidateQueries({ queryKey: [resource], refetchType: 'active' }),
        ),
      );
    },
  });
}
