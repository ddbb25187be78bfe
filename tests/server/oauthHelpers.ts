import crypto from 'node:crypto';
import bcrypt from 'bcryptjs';
import { sha256 } from '../../server/ids.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, PUBLIC_URL, type TestServer } from './helpers.js';

export const CONSOLE_REDIRECT = `${PUBLIC_URL}/callback`;

export function pkce() {
  const verifier = crypto.randomBytes(32).toString('base64url');
  return { verifier, challenge: sha256(verifier) };
}

/** The console's native form post, by default the seeded administrator with a fresh PKCE pair. */
export async function postLogin(server: TestServer, fields: Record<string, string | undefined>, headers: Record<string, string> = {}) {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.set(name, value);
  return server.app.inject({
    method: 'POST',
    url: '/oauth/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: form.toString(),
  });
}

export function consoleLoginFields(challenge: string, extra: Record<string, string | undefined> = {}) {
  return {
    email: ADMIN_EMAIL,
    password: ADMIN_PASSWORD,
    client_id: 'iam-console',
    redirect_uri: CONSOLE_REDIRECT,
    scope: 'openid username email user:admin',
    state: 'state-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    nonce: 'nonce-456',
    ...extra,
  };
}

/** The query of the 303's Location, or undefined when the answer is not a redirect. */
export function redirectParams(response: { statusCode: number; headers: Record<string, unknown> }) {
  const location = response.headers.location;
  if (typeof location !== 'string') return undefined;
  const url = new URL(location);
  return { url, params: Object.fromEntries(url.searchParams) };
}

export async function postToken(server: TestServer, fields: Record<string, string | undefined>, headers: Record<string, string> = {}) {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.set(name, value);
  const response = await server.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: form.toString(),
  });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

export const basicAuth = (clientId: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** Signs the administrator in through the console and returns the code with its verifier. */
export async function consoleCode(server: TestServer, extra: Record<string, string | undefined> = {}) {
  const { verifier, challenge } = pkce();
  const response = await postLogin(server, consoleLoginFields(challenge, extra));
  const code = redirectParams(response)?.params.code;
  if (response.statusCode !== 303 || !code) throw new Error(`login failed: ${response.statusCode} ${response.headers.location}`);
  return { code, verifier, response };
}

export async function setPassword(server: TestServer, companyId: string, domainId: string, userId: string, password: string) {
  await server.db.query(`UPDATE users SET password_hash = $4 WHERE company_id = $1 AND domain_id = $2 AND id = $3`, [
    companyId,
    domainId,
    userId,
    await bcrypt.hash(password, 10),
  ]);
}

export async function addApplication(
  server: TestServer,
  app: { id: string; companyId: string; domainId: string; appType?: string; secret?: string; redirectUris: string[] },
) {
  await server.db.query(
    `INSERT INTO applications (id, company_id, domain_id, client_name, app_type, client_secret_hash, redirect_uris)
     VALUES ($1, $2, $3, $1, $4, $5, $6)`,
    [app.id, app.companyId, app.domainId, app.appType ?? 'SPA', app.secret ? sha256(app.secret) : null, JSON.stringify(app.redirectUris)],
  );
}
