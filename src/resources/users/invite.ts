import type { useNotify } from 'react-admin';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import type { PathContext } from '../../session/session';

/**
 * A user just made without a password gets her invitation (docs/CONSOLE.md, "E-mail, reset links
 * and invitations"): POST …/users/{id}/sendInvitation, then a notification. A refusal is said, the
 * user stays made: the E-mail card's Resend invitation sends it again.
 */
export async function inviteUser(context: PathContext, user: { id: unknown; email?: unknown }, notify: ReturnType<typeof useNotify>): Promise<void> {
  const url = `${config.apiBase}/companys/${encodeURIComponent(context.companyId)}/domainNames/${encodeURIComponent(context.domainId)}/users/${encodeURIComponent(String(user.id))}/sendInvitation`;
  try {
    const { json } = await httpClient(url, { method: 'POST', body: '{}' });
    const answer = json as { recipient: string; mailConfigured: boolean };
    notify(answer.mailConfigured ? 'iam.emailActions.invited' : 'iam.emailActions.invitedToOutbox', { type: 'info', messageArgs: { email: answer.recipient } });
  } catch (failure) {
    notify('iam.emailActions.inviteFailed', { type: 'warning', messageArgs: { message: (failure as Error).message } });
  }
}
