import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import type { PathContext } from '../../session/session';

/** A domain's connections under the management API (the declaration's path; not imported from it: this loads lazily). */
const connectionsPath = ({ companyId, domainId }: PathContext) =>
  `companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/connections`;

/** One connection's address under the management API (its e-mail domains, its test sign-in). */
export const connectionUrl = (context: PathContext, connectionId: string) =>
  `${config.apiBase}/${connectionsPath(context)}/${encodeURIComponent(connectionId)}`;

/** A claimed e-mail domain (docs/CONSOLE.md, "Connections"): verified by DNS or an administrator's confirmation. */
export interface EmailDomainClaim {
  emailDomain: string;
  verificationToken?: string;
  txtRecord?: string;
  verifiedAt?: string | null;
}

export async function postJson<T>(url: string, body?: unknown): Promise<T> {
  const { json } = await httpClient(url, { method: 'POST', body: body === undefined ? undefined : JSON.stringify(body) });
  return json as T;
}
