import type { useNotify } from 'react-admin';
import { httpClient } from '../../http/httpClient';

/**
 * Posts one of the sends of a person's e-mail (a reset link, an invitation, a verification, or the
 * outbox's resend) and says what became of it: sent, written to the outbox, or why not. True when
 * the provider took it.
 */
export async function sendAndSay(url: string, notify: ReturnType<typeof useNotify>): Promise<boolean> {
  try {
    const { json } = await httpClient(url, { method: 'POST', body: '{}' });
    const answer = json as { recipient: string; mailConfigured: boolean };
    notify(answer.mailConfigured ? 'iam.emailActions.sent' : 'iam.emailActions.queued', { type: 'info', messageArgs: { email: answer.recipient } });
    return true;
  } catch (failure) {
    notify('iam.emailActions.failed', { type: 'error', messageArgs: { message: (failure as Error).message } });
    return false;
  }
}
