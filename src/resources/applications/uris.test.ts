import { describe, expect, it } from 'vitest';
import { randomAlphanumeric } from './generate';
import { applicationSnippet, apiSnippet, type Discovery } from './quickStart';
import { cleanUriList, firstUriProblem, splitLines } from '../generic/uris';

describe('URI lists', () => {
  it('split on any line break and drop blank lines and surrounding spaces on save', () => {
    expect(splitLines('a\r\nb\rc\n\n d ')).toEqual(['a', 'b', 'c', '', ' d ']);
    expect(cleanUriList(splitLines('a\r\nb\rc\n\n d '))).toEqual(['a', 'b', 'c', 'd']);
  });

  it('name the first bad URI and why, as the provider would', () => {
    expect(firstUriProblem(['https://ok.example/cb', 'not a uri'], 'uri')).toEqual({ uri: 'not a uri', problem: 'iam.uris.spaces' });
    expect(firstUriProblem(['relative/path'], 'uri')?.problem).toBe('iam.uris.notAbsolute');
    expect(firstUriProblem(['https://a.example/cb#x'], 'uri')?.problem).toBe('iam.uris.fragment');
    expect(firstUriProblem(['http://a.example/cb'], 'uri')?.problem).toBe('iam.uris.https');
    expect(firstUriProblem(['http://127.0.0.1:8080/cb'], 'uri')).toBeUndefined();
    expect(firstUriProblem(['https://a.example/path'], 'origin')?.problem).toBe('iam.uris.origin');
    expect(firstUriProblem(['https://a.example'], 'origin')).toBeUndefined();
    expect(firstUriProblem(['com.example.app:/cb'], 'uri', 'SPA')?.problem).toBe('iam.uris.customScheme');
    expect(firstUriProblem(['com.example.app:/cb'], 'uri', 'native')).toBeUndefined();
    expect(firstUriProblem(['javascript:alert(1)'], 'uri', 'native')?.problem).toBe('iam.uris.unsafe');
  });
});

describe('generated ids', () => {
  it('are 32 letters and digits and differ every time', () => {
    const ids = new Set(Array.from({ length: 50 }, () => randomAlphanumeric()));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{32}$/);
  });
});

describe('Quick Start snippets', () => {
  const discovery: Discovery = {
    issuer: 'https://id.example',
    authorization_endpoint: 'https://id.example/oauth/authorize',
    token_endpoint: 'https://id.example/oauth/token',
    jwks_uri: 'https://id.example/oauth/jwks',
    userinfo_endpoint: 'https://id.example/oauth/userinfo',
  };

  it('use PKCE for single page and native applications, the secret for web, client_credentials for machines', () => {
    const spa = applicationSnippet(discovery, { client_id: 'abc', app_type: 'SPA', redirect_uris: ['https://app.example/cb'] });
    expect(spa).toContain("code_challenge_method: 'S256'");
    expect(spa).toContain('"https://id.example/oauth/authorize"');
    expect(spa).toContain('"abc"');
    expect(spa).toContain('"https://app.example/cb"');
    expect(spa).not.toContain('clientSecret');
    expect(applicationSnippet(discovery, { client_id: 'abc', app_type: 'native' })).toContain('code_verifier');
    const web = applicationSnippet(discovery, { client_id: 'abc', app_type: 'web' });
    expect(web).toContain("grant_type: 'authorization_code'");
    expect(web).toContain('Basic');
    const machine = applicationSnippet(discovery, { client_id: 'abc', app_type: 'machine', audience: 'https://api.example' });
    expect(machine).toContain("grant_type: 'client_credentials'");
    expect(machine).toContain('audience: "https://api.example"');
  });

  it('validate API tokens with jose against the JWKS, or the signing secret for HS256', () => {
    const rs = apiSnippet(discovery, { identifier: 'https://api.example', signingAlgorithm: 'RS256' });
    expect(rs).toContain('createRemoteJWKSet(new URL("https://id.example/oauth/jwks"))');
    expect(rs).toContain('audience: "https://api.example"');
    expect(rs).toContain('issuer: "https://id.example"');
    const hs = apiSnippet(discovery, { identifier: 'https://api.example', signingAlgorithm: 'HS256' });
    expect(hs).toContain("algorithms: [\"HS256\"]");
    expect(hs).not.toContain('createRemoteJWKSet');
  });
});
