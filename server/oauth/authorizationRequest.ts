import type { Queryable } from '../db/index.js';
import { allowedGrantTypes, findActiveClient, isPublicClient, isRegisteredRedirect, type OAuthClient } from './clients.js';
import { namedAudience, type ResourceApi, resolveAudience } from './resources.js';

/** The parameters /oauth/authorize receives in its query and /oauth/login in its form. */
export interface AuthorizationParams {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  nonce?: string;
  prompt?: string;
  /** The API the tokens are for (its identifier); `resource` is the RFC 8707 spelling of the same thing. */
  audience?: string;
  resource?: string;
}

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  scope: string;
  state?: string;
  codeChallenge?: string;
  nonce?: string;
  /** The audience exactly as the request named it (carried through the login form). */
  audience?: string;
  /** The API the tokens will be for; undefined means this provider's management API. */
  api?: ResourceApi;
}

export type CheckedRequest =
  | { kind: 'valid'; request: AuthorizationRequest }
  /** The client or its redirect URI cannot be trusted: show an error page, never redirect (RFC 6749 4.1.2.1). */
  | { kind: 'page'; message: string; reason: 'bad_client' | 'bad_redirect_uri'; client?: OAuthClient }
  /** The redirect URI is trusted: the error goes back to the client. */
  | { kind: 'redirect'; location: string };

const stringProperty = (maxLength: number) => ({ type: 'string', maxLength }) as const;

/** JSON schema of the parameters: only lengths, so that every mistake gets its OAuth answer below. */
export const authorizationParamsSchema = {
  type: 'object',
  properties: {
    client_id: stringProperty(200),
    redirect_uri: stringProperty(2000),
    response_type: stringProperty(50),
    scope: stringProperty(2000),
    state: stringProperty(2000),
    code_challenge: stringProperty(200),
    code_challenge_method: stringProperty(20),
    nonce: stringProperty(500),
    prompt: stringProperty(100),
    audience: stringProperty(2000),
    resource: stringProperty(2000),
  },
} as const;

/** RFC 6749 3.3 scope-token characters. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;
/** An S256 challenge is the base64url SHA-256 of the verifier: exactly 43 characters (RFC 7636 4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** Where an authorization response (success or error) is sent: the redirect URI plus our issuer (RFC 9207). */
export function responseLocation(redirectUri: string, issuer: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('iss', issuer);
  return url.toString();
}

/**
 * Validates an authorization request in the order RFC 6749 demands: first the client and its
 * redirect URI (errors shown as a page), then everything else (errors sent to the client).
 */
export async function checkAuthorizationRequest(
  db: Queryable,
  params: AuthorizationParams,
  options: { issuer: string; responseTypeRequired: boolean },
): Promise<CheckedRequest> {
  const client = await findActiveClient(db, params.client_id);
  if (!client) return { kind: 'page', message: 'Unknown or inactive application (client_id).', reason: 'bad_client' };
  if (!isRegisteredRedirect(client, params.redirect_uri)) {
    return { kind: 'page', message: 'The redirect_uri is missing or is not registered for this application.', reason: 'bad_redirect_uri', client };
  }
  const redirectUri = params.redirect_uri;
  const fail = (error: string, description: string): CheckedRequest => ({
    kind: 'redirect',
    location: responseLocation(redirectUri, options.issuer, { error, error_description: description, state: params.state }),
  });

  if (!allowedGrantTypes(client).includes('authorization_code')) {
    return fail('unauthorized_client', 'the authorization_code grant is not enabled for this application');
  }
  if (options.responseTypeRequired || params.response_type !== undefined) {
    if (!params.response_type) return fail('invalid_request', 'response_type is required');
    if (params.response_type !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');
  }
  const scope = (params.scope ?? '').trim();
  if (scope && !SCOPE.test(scope)) return fail('invalid_scope', 'scope holds characters that are not allowed');
  if (params.prompt?.split(' ').includes('none')) return fail('login_required', 'the user must sign in');

  const challenge = params.code_challenge || undefined;
  const method = params.code_challenge_method || undefined;
  if (challenge || method) {
    // a challenge without a method means "plain" (RFC 7636 4.3), which is refused like any method but S256
    if (method !== 'S256') return fail('invalid_request', 'PKCE: only code_challenge_method=S256 is supported');
    if (!challenge || !S256_CHALLENGE.test(challenge)) return fail('invalid_request', 'PKCE: code_challenge must be 43 base64url characters');
  } else if (isPublicClient(client)) {
    return fail('invalid_request', 'PKCE: this application must send a code_challenge (S256)');
  }

  const named = namedAudience(client, params);
  if (named === null) return fail('invalid_request', 'audience and resource name different APIs');
  const audience = await resolveAudience(db, options.issuer, client, named);
  if (!audience) return fail('invalid_target', 'the audience is not an active API of this application\'s domain');
  const explicit = params.audience?.trim() || params.resource?.trim() || undefined;

  return {
    kind: 'valid',
    request: {
      client,
      redirectUri,
      scope,
      state: params.state,
      codeChallenge: challenge,
      nonce: params.nonce || undefined,
      audience: explicit,
      api: audience.kind === 'api' ? audience.api : undefined,
    },
  };
}
