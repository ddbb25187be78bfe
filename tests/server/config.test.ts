import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { configFromEnv, parsePoolSize, parseWebConcurrency } from '../../server/config.js';

const PG = 'postgres://iam@db/iam';

describe('WEB_CONCURRENCY', () => {
  it('is one process when unset, a whole number, or one per core with auto', () => {
    expect(parseWebConcurrency(undefined, undefined)).toBe(1);
    expect(parseWebConcurrency('1', undefined)).toBe(1);
    expect(parseWebConcurrency('4', PG)).toBe(4);
    expect(parseWebConcurrency('auto', PG)).toBe(os.availableParallelism());
  });

  it('needs PostgreSQL for more than one process, and says so', () => {
    expect(() => parseWebConcurrency('2', undefined)).toThrow(/WEB_CONCURRENCY=2 needs DATABASE_URL/);
  });

  it.each(['0', '-1', '2.5', 'many', '1000'])('refuses %s, naming the variable', (value) => {
    expect(() => parseWebConcurrency(value, PG)).toThrow(/^WEB_CONCURRENCY must be/);
  });
});

describe('DATABASE_POOL_SIZE', () => {
  it('defaults to two connections per core shared by the processes, at least 4 each', () => {
    const cores = os.availableParallelism();
    expect(parsePoolSize(undefined)).toBe(Math.max(4, 2 * cores));
    expect(parsePoolSize(undefined, 64)).toBe(4);
    expect(parsePoolSize('25', 4)).toBe(25);
  });

  it.each(['0', 'ten', '1.5', '5000'])('refuses %s, naming the variable', (value) => {
    expect(() => parsePoolSize(value)).toThrow(/^DATABASE_POOL_SIZE must be/);
  });

  it('reaches the configuration', () => {
    const config = configFromEnv({ DATABASE_URL: PG, WEB_CONCURRENCY: '2', DATABASE_POOL_SIZE: '7' });
    expect(config.webConcurrency).toBe(2);
    expect(config.databasePoolSize).toBe(7);
  });
});

describe('DATABASE_PREPARED_STATEMENTS', () => {
  it('is on unless turned off, and refuses anything but on or off, naming the variable', () => {
    expect(configFromEnv({ DATABASE_URL: PG }).databasePreparedStatements).toBe(true);
    expect(configFromEnv({ DATABASE_URL: PG, DATABASE_PREPARED_STATEMENTS: 'off' }).databasePreparedStatements).toBe(false);
    expect(() => configFromEnv({ DATABASE_URL: PG, DATABASE_PREPARED_STATEMENTS: 'sometimes' })).toThrow(/^DATABASE_PREPARED_STATEMENTS must be on or off/);
  });
});

describe('SMTP_URL and MAIL_FROM', () => {
  it('takes an smtp: or smtps: URL, and nothing when unset; anything else stops start-up', () => {
    expect(configFromEnv({}).smtpUrl).toBeUndefined();
    expect(configFromEnv({ SMTP_URL: '  ' }).smtpUrl).toBeUndefined();
    expect(configFromEnv({ SMTP_URL: 'smtp://user:secret@mail.example:587' }).smtpUrl).toBe('smtp://user:secret@mail.example:587');
    expect(configFromEnv({ SMTP_URL: 'smtps://mail.example' }).smtpUrl).toBe('smtps://mail.example');
    for (const bad of ['mail.example:25', 'http://mail.example', 'smtp://']) {
      expect(() => configFromEnv({ SMTP_URL: bad }), bad).toThrow(/SMTP_URL must be smtp:\/\//);
    }
    expect(configFromEnv({ MAIL_FROM: 'accounts@example.com' }).mailFrom).toBe('accounts@example.com');
    expect(configFromEnv({}).mailFrom).toBeUndefined();
  });
});
