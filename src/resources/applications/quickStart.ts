/**
 * Quick Start snippets (docs/CONSOLE.md, "Applications"): working code for an application type, filled in with this
 * provider's endpoints (from its discovery document) and the application's client_id.
 */
import { config } from '../../config';

export interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint: string;
}

export function discoveryUrl(): string {
  const origin = new URL(config.authServer, window.location.origin).origin;
  return `${origin}/.well-known/openid-configuration`;
}

export interface SnippetApplication {
  client_id: string;
  app_type?: string;
  redirect_uris?: string[];
  audience?: string;
}

const q = (value: string) => JSON.stringify(value);

function pkceSnippet(discovery: Discovery, app: SnippetApplication, native: boolean): string {
  const redirect = app.redirect_uris?.[0] ?? (native ? 'com.example.app:/callback' : 'https://app.example.com/callback');
  return `// Authorization code flow with PKCE (${native ? 'native application' : 'single page application'}).
const clientId = ${q(app.client_id)};
const redirectUri = ${q(redirect)};
const authorizationEndpoint = ${q(discovery.authorization_endpoint)};
const tokenEndpoint = ${q(discovery.token_endpoint)};
const userinfoEndpoint = ${q(discovery.userinfo_endpoint)};

const base64url = (bytes) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');

// 1. Send the user to the provider's sign-in page.
export async function signIn() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem('pkce', JSON.stringify({ verifier, state }));
  const url = new URL(authorizationEndpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'openid email',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url);
}

// 2. On the redirect URI: check the state, exchange the code, read the user.
export async function handleCallback() {
  const params = new URLSearchParams(location.search);
  const { verifier, state } = JSON.parse(sessionStorage.getItem('pkce') ?? '{}');
  sessionStorage.removeItem('pkce');
  if (!params.get('code') || params.get('state') !== state) throw new Error('Invalid sign-in response');
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.get('code'),
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
    }),
  });
  if (!response.ok) throw new Error(\`Token request failed: \${response.status}\`);
  const tokens = await response.json();
  const user = await fetch(userinfoEndpoint, {
    headers: { Authorization: \`Bearer \${tokens.access_token}\` },
  }).then((answer) => answer.json());
  return { tokens, user };
}
`;
}

function webSnippet(discovery: Discovery, app: SnippetApplication): string {
  const redirect = app.redirect_uris?.[0] ?? 'https://app.example.com/callback';
  return `// Authorization code flow for a server-side web application (Node.js 20+, no dependencies).
// The client secret stays on the server: it was shown once when the application was created.
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';

const clientId = ${q(app.client_id)};
const clientSecret = process.env.CLIENT_SECRET;
const redirectUri = ${q(redirect)};
const authorizationEndpoint = ${q(discovery.authorization_endpoint)};
const tokenEndpoint = ${q(discovery.token_endpoint)};
const userinfoEndpoint = ${q(discovery.userinfo_endpoint)};
const pending = new Set();

createServer(async (request, response) => {
  const url = new URL(request.url, redirectUri);
  if (url.pathname === '/login') {
    const state = randomBytes(16).toString('hex');
    pending.add(state);
    const target = new URL(authorizationEndpoint);
    target.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: 'openid email',
      state,
    }).toString();
    response.writeHead(302, { Location: target.toString() }).end();
    return;
  }
  if (url.pathname === new URL(redirectUri).pathname) {
    const state = url.searchParams.get('state');
    if (!pending.delete(state)) return response.writeHead(400).end('Unknown state');
    const answer = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: 'Basic ' + Buffer.from(\`\${clientId}:\${clientSecret}\`).toString('base64'),
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: url.searchParams.get('code'), redirect_uri: redirectUri }),
    });
    if (!answer.ok) return response.writeHead(502).end(\`Token request failed: \${answer.status}\`);
    const tokens = await answer.json();
    const user = await fetch(userinfoEndpoint, { headers: { Authorization: \`Bearer \${tokens.access_token}\` } }).then((r) => r.json());
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(user));
    return;
  }
  response.writeHead(404).end();
}).listen(3000);
`;
}

function machineSnippet(discovery: Discovery, app: SnippetApplication): string {
  const audience = app.audience ? `\n    audience: ${q(app.audience)},` : '';
  return `// Client credentials flow: a machine-to-machine application gets its own access token (Node.js 20+).
// The client secret was shown once when the application was created.
const clientId = ${q(app.client_id)};
const clientSecret = process.env.CLIENT_SECRET;
const tokenEndpoint = ${q(discovery.token_endpoint)};

export async function getAccessToken() {
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: 'Basic ' + Buffer.from(\`\${clientId}:\${clientSecret}\`).toString('base64'),
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',${audience}
    }),
  });
  if (!response.ok) throw new Error(\`Token request failed: \${response.status}\`);
  const { access_token, expires_in } = await response.json();
  return { accessToken: access_token, expiresIn: expires_in };
}
`;
}

export function applicationSnippet(discovery: Discovery, app: SnippetApplication): string {
  switch (app.app_type) {
    case 'web':
      return webSnippet(discovery, app);
    case 'machine':
      return machineSnippet(discovery, app);
    case 'native':
      return pkceSnippet(discovery, app, true);
    default:
      return pkceSnippet(discovery, app, false);
  }
}

/** Validating this API's access tokens in a resource server with jose against the provider's JWKS. */
export function apiSnippet(discovery: Discovery, api: { identifier: string; signingAlgorithm?: string }): string {
  const hs256 = api.signingAlgorithm === 'HS256';
  const key = hs256
    ? `// HS256: the signing secret was shown once when the API was created.
const key = new TextEncoder().encode(process.env.API_SIGNING_SECRET);`
    : `const key = createRemoteJWKSet(new URL(${q(discovery.jwks_uri)}));`;
  return `// Validate access tokens for this API in your resource server (npm install jose).
import { ${hs256 ? '' : 'createRemoteJWKSet, '}jwtVerify } from 'jose';

${key}

export async function verifyAccessToken(authorizationHeader) {
  const token = authorizationHeader?.replace(/^Bearer /, '');
  if (!token) throw new Error('Missing bearer token');
  const { payload } = await jwtVerify(token, key, {
    issuer: ${q(discovery.issuer)},
    audience: ${q(api.identifier)},
    algorithms: [${q(hs256 ? 'HS256' : 'RS256')}],
  });
  return payload; // sub, scope, exp ...
}

// Example: check a permission scope before answering.
export async function requireScope(request, permission) {
  const payload = await verifyAccessToken(request.headers.authorization);
  if (!String(payload.scope ?? '').split(' ').includes(permission)) throw new Error('Forbidden');
  return payload;
}
`;
}
