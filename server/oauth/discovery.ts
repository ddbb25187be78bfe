import type { FastifyInstance } from 'fastify';
import { ADMIN_SCOPE } from './tokens.js';
import { grantHandlers } from './token.js';

/** OpenID Connect Discovery 1.0 and the public keys that verify our tokens. */
export async function discoveryRoutes(app: FastifyInstance) {
  const { config, keys } = app.ctx;
  const issuer = config.publicUrl;

  app.get(
    '/oauth/jwks',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Public signing keys (JWKS)',
        security: [],
        response: { 200: { type: 'object', properties: { keys: { type: 'array', items: { type: 'object', additionalProperties: true } } } } },
      },
    },
    async (request, reply) => reply.header('Cache-Control', 'public, max-age=300').send({ keys: [keys.publicJwk] }),
  );

  const configuration = {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    userinfo_endpoint: `${issuer}/oauth/userinfo`,
    jwks_uri: `${issuer}/oauth/jwks`,
    end_session_endpoint: `${issuer}/oauth/logout`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: Object.keys(grantHandlers),
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
    id_token_signing_alg_values_supported: ['RS256'],
    scopes_supported: ['openid', 'profile', 'email', 'username', 'offline_access', ADMIN_SCOPE],
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'sid', 'name', 'preferred_username', 'email', 'email_verified'],
    subject_types_supported: ['public'],
    authorization_response_iss_parameter_supported: true,
    // access tokens for an API: name it with audience (or RFC 8707 resource) at /authorize or the token endpoint
    resource_indicators_supported: true,
  };

  app.get(
    '/.well-known/openid-configuration',
    {
      schema: {
        tags: ['oauth'],
        summary: 'OpenID Provider metadata',
        security: [],
        response: { 200: { type: 'object', additionalProperties: true } },
      },
    },
    async (request, reply) => reply.header('Cache-Control', 'public, max-age=300').send(configuration),
  );
}
