/** The column mapping's guess and the file preview (docs/CONSOLE.md, "Import and export"). */
import { describe, expect, it } from 'vitest';
import { duplicateFields, formatOf, guessField, guessMapping, isFieldName, mappingToSend } from './mapping';
import { PREVIEW_BYTES, readPreview } from './preview';

describe('the column guess', () => {
  it("maps the contract's own names to themselves, whatever their case and punctuation", () => {
    for (const field of ['id', 'username', 'displayName', 'email', 'emailVerified', 'status', 'blocked', 'requiredActions', 'notes', 'externalId', 'passwordHash', 'groups']) {
      expect(guessField(field)).toBe(field);
    }
    expect(guessField('E-mail')).toBe('email');
    expect(guessField('Display Name')).toBe('displayName');
    expect(guessField('password_hash')).toBe('passwordHash');
    expect(guessField('EMAIL_VERIFIED')).toBe('emailVerified');
  });

  it("reads other providers' exports: Auth0, Entra ID, Okta, Firebase", () => {
    // Auth0's user export
    expect(guessMapping(['user_id', 'email', 'email_verified', 'name', 'nickname', 'blocked', 'given_name'])).toEqual({
      user_id: 'externalId',
      email: 'email',
      email_verified: 'emailVerified',
      name: 'displayName',
      nickname: 'username',
      blocked: 'blocked',
      given_name: '',
    });
    // Entra ID's
    expect(guessMapping(['objectId', 'userPrincipalName', 'displayName', 'mail', 'accountEnabled'])).toEqual({
      objectId: 'externalId',
      userPrincipalName: 'username',
      displayName: 'displayName',
      mail: 'email',
      accountEnabled: '',
    });
    // Firebase's auth:export
    expect(guessMapping(['localId', 'email', 'emailVerified', 'passwordHash', 'salt'])).toMatchObject({ localId: 'externalId', passwordHash: 'passwordHash', salt: '' });
  });

  it('gives a field to the first column that suggests it, the others are left out', () => {
    expect(guessMapping(['email', 'mail', 'Email Address'])).toEqual({ email: 'email', mail: '', 'Email Address': '' });
  });

  it("a column named as a field keeps it, before another column's guess (the provider reads it so unless it is mapped)", () => {
    expect(guessMapping(['mail', 'email', 'login'])).toEqual({ mail: '', email: 'email', login: 'username' });
    expect(isFieldName('email')).toBe(true);
    expect(isFieldName('Email')).toBe(false);
  });

  it('sends the mapped columns only, and finds a field chosen twice', () => {
    expect(mappingToSend({ mail: 'email', given_name: '', groups: 'groups' })).toEqual({ mail: 'email', groups: 'groups' });
    expect(duplicateFields({ a: 'email', b: 'email', c: 'username', d: '' })).toEqual(['email']);
    expect(duplicateFields({ a: 'email', b: '' })).toEqual([]);
  });

  it('infers the format from the name', () => {
    expect(formatOf('users.csv')).toBe('csv');
    expect(formatOf('USERS.JSONL')).toBe('jsonl');
    expect(formatOf('export.ndjson')).toBe('jsonl');
    expect(formatOf('export.json')).toBe('jsonl');
    expect(formatOf('users.txt')).toBe('csv');
  });
});

describe('the preview', () => {
  it('reads the header and the first rows of a CSV file, quotes and a byte-order mark included', async () => {
    const text = '\uFEFFemail,name,groups\r\nada@example.com,"Lovelace, Ada","staff;admins"\r\nbob@example.com,Bob\r\n';
    const preview = await readPreview(new Blob([text]), 'csv');
    expect(preview.columns).toEqual(['email', 'name', 'groups']);
    expect(preview.rows).toEqual([
      ['ada@example.com', 'Lovelace, Ada', 'staff;admins'],
      ['bob@example.com', 'Bob', ''],
    ]);
  });

  it('reads the keys of JSON Lines, lists joined', async () => {
    const text = '{"email":"ada@example.com","groups":["staff","admins"]}\n\n{"email":"bob@example.com","emailVerified":true}\n';
    const preview = await readPreview(new Blob([text]), 'jsonl');
    expect(preview.columns).toEqual(['email', 'groups', 'emailVerified']);
    expect(preview.rows).toEqual([
      ['ada@example.com', 'staff; admins', ''],
      ['bob@example.com', '', 'true'],
    ]);
  });

  it('reads only the first 64 KB of a big file, and its whole lines', async () => {
    const line = (index: number) => `user${index}@example.com,User ${index}\n`;
    const text = `email,name\n${Array.from({ length: 20_000 }, (_, index) => line(index)).join('')}`;
    expect(text.length).toBeGreaterThan(PREVIEW_BYTES * 4);
    const preview = await readPreview(new Blob([text]), 'csv');
    expect(preview.rows[0]).toEqual(['user0@example.com', 'User 0']);
    expect(preview.rows).toHaveLength(5);
    // JSON Lines cut in the middle of a line: that line is left out, not an error
    const jsonl = Array.from({ length: 5000 }, (_, index) => JSON.stringify({ email: `user${index}@example.com`, notes: 'x'.repeat(20) })).join('\n');
    expect((await readPreview(new Blob([jsonl]), 'jsonl')).rows).toHaveLength(5);
  });

  it('says which line is not JSON', async () => {
    await expect(readPreview(new Blob(['{"email":"a@b.c"}\nnot json\n']), 'jsonl')).rejects.toThrow('line 2 is not a JSON object');
  });
});
