import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTBOX_KEPT_SECONDS, purgeOldMail, startMaintenance, type MaintenanceStep } from '../../server/db/maintenance.js';
import { LIFETIME_SECONDS } from '../../server/accounts/links.js';
import { call, createTenant, startServer, type Tenant, type TestServer } from './helpers.js';

/**
 * The outbox does not keep messages for ever (docs/CONSOLE.md, "E-mail, reset links and
 * invitations"): the hourly purge of the background maintenance deletes messages older than the
 * longest link they can carry (an invitation's 7 days), and account tokens an hour past expiry.
 */
let server: TestServer;
let acme: Tenant;
const users = `/api/companys/acme/domainNames/acme-domain/users`;

/** A message of the outbox and its token, made `ageSeconds` ago. */
async function aged(userId: string, route: string, ageSeconds: number) {
  const sent = await call(server, acme.adminToken, 'POST', `${users}/${userId}/${route}`, {});
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  const id = sent.body.messageId as string;
  await server.db.query(`UPDATE mail_outbox SET created_at = now() - make_interval(secs => $2) WHERE id = $1`, [id, ageSeconds]);
  await server.db.query(
    `UPDATE account_tokens SET created_at = created_at - make_interval(secs => $2), expires_at = expires_at - make_interval(secs => $2) WHERE user_id = $1 AND used_at IS NULL`,
    [userId, ageSeconds],
  );
  return id;
}

const messageIds = async () => new Set((await server.db.query<{ id: string }>(`SELECT id FROM mail_outbox WHERE company_id = 'acme'`)).rows.map((row) => row.id));
const tokensOf = async (userId: string) => (await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM account_tokens WHERE user_id = $1`, [userId])).rows[0].n;

beforeAll(async () => {
  server = await startServer();
  acme = await createTenant(server, 'acme', 'root', 'customer');
  await server.db.query(
    `INSERT INTO users (company_id, domain_id, id, username, display_name, email)
     SELECT 'acme', 'acme-domain', 'u' || i, 'u' || i, 'U ' || i, 'u' || i || '@acme.example' FROM generate_series(1, 4) AS i`,
  );
}, 60_000);
afterAll(() => server?.close());

describe('the outbox purge', () => {
  it('keeps messages as long as the longest link works: an invitation, 7 days', () => {
    expect(OUTBOX_KEPT_SECONDS).toBe(7 * 24 * 3600);
    for (const seconds of Object.values(LIFETIME_SECONDS)) expect(OUTBOX_KEPT_SECONDS).toBeGreaterThanOrEqual(seconds);
  });

  it('deletes messages past it and tokens an hour past their expiry, nothing younger', async () => {
    const old = await aged('u1', 'sendInvitation', OUTBOX_KEPT_SECONDS + 2 * 3600);
    const oldReset = await aged('u2', 'sendResetLink', 8 * 24 * 3600);
    const young = await aged('u3', 'sendInvitation', OUTBOX_KEPT_SECONDS - 3600);
    const fresh = await aged('u4', 'sendResetLink', 0);
    expect(await purgeOldMail(server.db, { batch: 1, pauseMs: 0 })).toBe(4);
    const left = await messageIds();
    expect(left.has(old)).toBe(false);
    expect(left.has(oldReset)).toBe(false);
    expect(left.has(young)).toBe(true);
    expect(left.has(fresh)).toBe(true);
    // u1's and u2's tokens are long expired; u3's invitation still works; u4's reset is live
    expect([await tokensOf('u1'), await tokensOf('u2'), await tokensOf('u3'), await tokensOf('u4')]).toEqual([0, 0, 1, 1]);
    expect(await purgeOldMail(server.db)).toBe(0);
  });

  it("runs in the background maintenance's purge", async () => {
    const old = await aged('u1', 'sendVerification', OUTBOX_KEPT_SECONDS + 60);
    const steps: MaintenanceStep[] = [];
    const stop = startMaintenance(server.db, { firstAfterMs: 0, checkEveryMs: 60_000, onStep: (step) => steps.push(step) });
    try {
      await expect.poll(() => steps.map((step) => step.sql).join('\n'), { timeout: 10_000 }).toContain('DELETE FROM mail_outbox');
    } finally {
      stop();
    }
    expect((await messageIds()).has(old)).toBe(false);
  });

  it('the outbox list reads by an index on its age for the purge (migration 28)', async () => {
    const { rows } = await server.db.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE tablename = 'mail_outbox' AND indexname = 'mail_outbox_age'`);
    expect(rows[0]?.indexdef).toMatch(/\(created_at\)/);
  });
});
