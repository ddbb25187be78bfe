import { describe, expect, it } from 'vitest';
import { connectionBody, presetValues, settingErrors } from './presets';

describe('the Apple preset', () => {
  it("asks for the team and key ids the provider signs Apple's client secret with, and sends them", () => {
    const empty = presetValues('apple');
    const errors = settingErrors('apple', { ...empty, clientId: 'com.example.web' }, true);
    expect(errors).toMatchObject({ appleTeamId: 'iam.errors.required', appleKeyId: 'iam.errors.required', clientSecret: 'iam.errors.required' });
    const values = { ...empty, clientId: 'com.example.web', appleTeamId: ' ABCDE12345 ', appleKeyId: 'XYZ987654W', clientSecret: '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n' };
    expect(settingErrors('apple', values, true)).toEqual({});
    expect(connectionBody('apple', values)).toMatchObject({
      preset: 'apple',
      protocol: 'oidc',
      issuer: 'https://appleid.apple.com',
      appleTeamId: 'ABCDE12345',
      appleKeyId: 'XYZ987654W',
      clientSecret: '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----',
    });
  });

  it('sends no Apple ids for the other presets', () => {
    const body = connectionBody('google', { ...presetValues('google'), clientId: 'id', clientSecret: 's', appleTeamId: 'T', appleKeyId: 'K' });
    expect(body).not.toHaveProperty('appleTeamId');
    expect(body).not.toHaveProperty('appleKeyId');
  });
});
