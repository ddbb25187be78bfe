import { type AppType, uriProblem } from '../clientUris.js';

/**
 * Dynamic Client Registration (RFC 7591) under the management API's rules: a registered client is
 * an application like any other (the console lists and edits it), so what it registers passes the
 * checks an administrator's form passes (URIs, sizes), and what the provider would fetch or trust
 * on a client's word alone (key sets, sector identifiers, request objects by URI) is refused.
 * Returns RFC 7591 3.2.2's error for the first problem, or undefined.
 */
export function registrationProblem(body: unknown): { error: string; error_description: string } | undefined {
  const metadata = (error: string) => ({ error: 'invalid_client_metadata', error_description: error });
  if (!body || typeof body !== 'object' || Array.isArray(body)) return metadata('the registration must be a JSON object');
  if (JSON.stringify(body).length > MAX_REGISTRATION_BYTES) return metadata(`the registration is larger than ${MAX_REGISTRATION_BYTES / 1024} KiB`);
  const fields = body as Record<string, unknown>;
  for (const name of REFUSED) if (fields[name] !== undefined) return metadata(`${name} is not supported: register keys and URIs through an administrator`);
  const name = fields.client_name;
  if (name !== undefined && (typeof name !== 'string' || name.length > 200)) return metadata('client_name must be a text of at most 200 characters');
  const appType: AppType = fields.application_type === 'native' ? 'native' : fields.token_endpoint_auth_method === 'none' ? 'SPA' : 'web';
  for (const [field, kind] of [
    ['redirect_uris', 'uri'],
    ['post_logout_redirect_uris', 'uri'],
  ] as const) {
    const list = fields[field];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.length > 100) return metadata(`${field} must be a list of at most 100 URIs`);
    for (const entry of list) {
      if (typeof entry !== 'string' || entry.length > 2000) return { error: field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata', error_description: `${field}: each entry must be a URI of at most 2000 characters` };
      const problem = uriProblem(entry, kind, appType);
      if (problem) return { error: field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata', error_description: `${field}: "${entry}" ${problem}` };
    }
  }
  for (const field of ['backchannel_logout_uri', 'client_uri', 'logo_uri', 'policy_uri', 'tos_uri'] as const) {
    const value = fields[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.length > 2000) return metadata(`${field} must be a URL of at most 2000 characters`);
    const problem = uriProblem(value, 'endpoint', appType);
    if (problem) return metadata(`${field}: "${value}" ${problem}`);
  }
  return undefined;
}

const MAX_REGISTRATION_BYTES = 32 * 1024;
const REFUSED = ['jwks', 'jwks_uri', 'sector_identifier_uri', 'request_uris', 'initiate_login_uri'] as const;
