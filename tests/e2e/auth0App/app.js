// An application written for Auth0's browser SDK, unchanged: only its settings name our provider
// (docs/PROTECT-YOUR-APP.md, "Moving from Auth0"). tests/e2e/auth0Spa.test.ts serves it and drives it.
/* global auth0 */
const settings = window.APP_SETTINGS;
window.auth0Client = auth0.createAuth0Client({
  domain: settings.domain,
  clientId: settings.clientId,
  // our issuer has no trailing slash; Auth0's does, and the SDK expects `https://{domain}/` unless told
  issuer: settings.issuer,
  useRefreshTokens: settings.useRefreshTokens,
  useFormData: settings.useFormData,
  authorizationParams: {
    redirect_uri: `${window.location.origin}/callback`,
    audience: settings.audience,
  },
});
window.auth0Client.then(
  async (client) => {
    document.getElementById('status').textContent = (await client.isAuthenticated()) ? 'Signed in' : 'Signed out';
  },
  (error) => {
    document.getElementById('status').textContent = `Failed: ${error.message}`;
  },
);
