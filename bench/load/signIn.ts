import crypto from 'node:crypto';
import http from 'node:http';

/** The console's sign-in over HTTP: form post to /oauth/login with PKCE, then the code exchange. */

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export class RequestTimeout extends Error {}

/** One HTTP request on `agent` (keep-alive), given up after 10 s like the load phases' requests. */
export function send(agent: http.Agent, url: string, method: string, body?: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { agent, method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: text }));
    });
    request.setTimeout(10_000, () => request.destroy(new RequestTimeout('request timed out')));
    request.on('error', reject);
    request.end(body);
  });
}

const form = (fields: Record<string, string>) => ({
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

/** Why a sign-in failed: the step and its status ("login 429"), "timeout" or "socket". */
export class SignInFailure extends Error {}

/** Signs in as the console does; returns the access token. */
export async function signIn(agent: http.Agent, baseUrl: string, redirectUri: string, email: string, password: string): Promise<string> {
  const verifier = crypto.randomBytes(32).toString('base64url');
  const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
  const step = async (path: string, fields: Record<string, string>) => {
    const { body, headers } = form(fields);
    try {
      return await send(agent, baseUrl + path, 'POST', body, headers);
    } catch (error) {
      throw new SignInFailure(error instanceof RequestTimeout ? 'timeout' : 'socket', { cause: error });
    }
  };
  const login = await step('/oauth/login', {
    email,
    password,
    client_id: 'iam-console',
    redirect_uri: redirectUri,
    scope: 'openid username email user:admin',
    state: crypto.randomBytes(8).toString('hex'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    nonce: crypto.randomBytes(8).toString('hex'),
  });
  const code = login.status === 303 ? new URL(String(login.headers.location)).searchParams.get('code') : null;
  if (!code) throw new SignInFailure(`login ${login.status}${login.status === 303 ? ' without code' : ''}`);
  const token = await step('/oauth/token', {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: 'iam-console',
    code_verifier: verifier,
  });
  if (token.status !== 200) throw new SignInFailure(`token ${token.status}`);
  return JSON.parse(token.body).access_token as string;
}

export interface StormResult {
  /** Milliseconds of each completed sign-in, sorted. */
  samples: number[];
  seconds: number;
  /** Failed sign-ins by reason: the step and its status ("login 429"), "timeout" or "socket". */
  failures: Record<string, number>;
}

/** `clients` concurrent sign-ins over and over for `seconds`; the n-th uses the account `account(n)`. */
export async function signInStorm(
  baseUrl: string,
  redirectUri: string,
  clients: number,
  seconds: number,
  account: (n: number) => { email: string; password: string },
): Promise<StormResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const samples: number[] = [];
  const failures: Record<string, number> = {};
  let next = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const { email, password } = account(next++);
        const began = performance.now();
        try {
          await signIn(agent, baseUrl, redirectUri, email, password);
          samples.push(performance.now() - began);
        } catch (error) {
          if (!(error instanceof SignInFailure)) throw error;
          failures[error.message] = (failures[error.message] ?? 0) + 1;
        }
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  samples.sort((a, b) => a - b);
  return { samples, seconds: elapsed, failures };
}
