import { stringify } from 'csv-stringify/sync';
import { FORMULA } from './rows.js';
import { type ExportOptions, CHUNK_BYTES, OUTPUT } from './store.js';
import type { JobWork } from './work.js';

/**
 * An export job's work (docs/CONSOLE.md, "Import and export"): the domain's users in keyset pages
 * by id, written as CSV or JSON Lines with the columns an import takes, into the job's output
 * pieces. Each piece is committed with the id of its last user, so an export taken up again after
 * a restart goes on after it. Password hashes only when the job says so (its creator held
 * roles:owner, checked when it was created); group names when asked.
 */

/** The columns of an export, in order: those an import reads. */
export function exportColumns(options: Pick<ExportOptions, 'passwordHashes' | 'groups'>): string[] {
  return [
    'id',
    'username',
    'displayName',
    'email',
    'emailVerified',
    'status',
    'blocked',
    'requiredActions',
    'notes',
    'externalId',
    ...(options.passwordHashes ? ['passwordHash'] : []),
    ...(options.groups ? ['groups'] : []),
  ];
}

interface UserLine {
  id: string;
  username: string;
  displayName: string;
  email: string;
  emailVerified: boolean;
  status: string;
  blocked: boolean;
  requiredActions: string[];
  notes: string;
  externalId: string | null;
  passwordHash?: string | null;
  groups?: string[];
}

const PAGE = 1000;

export async function runExport(work: JobWork): Promise<'done' | 'stopped'> {
  const { db, job } = work;
  const options = job.options as ExportOptions;
  const columns = exportColumns(options);
  let cursor = options.cursor ?? '';
  let seq: number;
  {
    const { rows } = await db.query<{ next: number }>(
      `SELECT coalesce(max(seq) + 1, 0) AS next FROM user_job_chunks WHERE company_id = $1 AND domain_id = $2 AND job_id = $3 AND part = 'output'`,
      [job.companyId, job.domainId, job.id],
    );
    seq = rows[0].next;
  }
  const select = `SELECT u.id, u.username, u.display_name AS "displayName", u.email, u.email_verified AS "emailVerified", u.status,
      u.blocked_at IS NOT NULL AS blocked, u.required_actions AS "requiredActions", u.notes, u.external_id AS "externalId"
      ${options.passwordHashes ? ', u.password_hash AS "passwordHash"' : ''}
      ${options.groups ? `, ARRAY(SELECT g.name FROM group_members m JOIN groups g ON g.company_id = m.company_id AND g.domain_id = m.domain_id AND g.id = m.group_id
                                 WHERE m.company_id = u.company_id AND m.domain_id = u.domain_id AND m.member_type = 'user' AND m.member_id = u.id ORDER BY g.name) AS groups` : ''}
    FROM users u WHERE u.company_id = $1 AND u.domain_id = $2 AND u.id > $3 ORDER BY u.id LIMIT ${PAGE}`;
  const line = (user: UserLine): string => {
    if (options.format === 'jsonl') {
      const record: Record<string, unknown> = {};
      for (const name of columns) record[name] = user[name as keyof UserLine];
      return `${JSON.stringify(record)}\n`;
    }
    const cells = columns.map((name) => {
      const value = user[name as keyof UserLine];
      const text = Array.isArray(value) ? value.join(';') : value;
      // what a spreadsheet would run as a formula gets a leading quote, which an import takes off again
      return typeof text === 'string' && FORMULA.test(text) ? `'${text}` : text;
    });
    return stringify([cells], { cast: { boolean: (value) => String(value) } });
  };
  let pending: string[] = headerLines();
  let pendingBytes = pending.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  let pendingRows = 0;
  function headerLines(): string[] {
    // the header starts the file, not a resumed piece
    return options.format === 'csv' && seq === 0 ? [stringify([columns])] : [];
  }

  const flush = async () => {
    const data = Buffer.from(pending.join(''));
    const rowsBefore = job.rowsRead;
    await work.commit(rowsBefore, rowsBefore + pendingRows, () => undefined, async (tx) => {
      await tx.query(`INSERT INTO user_job_chunks (company_id, domain_id, job_id, part, seq, data) VALUES ($1, $2, $3, $4, $5, $6)`, [
        job.companyId,
        job.domainId,
        job.id,
        OUTPUT,
        seq,
        data,
      ]);
      return { bytes: data.length, cursor };
    });
    seq++;
    pending = [];
    pendingBytes = 0;
    pendingRows = 0;
  };

  for (;;) {
    const { rows } = await db.query<UserLine>(select, [job.companyId, job.domainId, cursor]);
    for (const user of rows) {
      const text = line(user);
      pending.push(text);
      pendingBytes += Buffer.byteLength(text);
      pendingRows++;
    }
    if (rows.length) cursor = rows[rows.length - 1].id;
    if (pendingBytes >= CHUNK_BYTES || (rows.length < PAGE && pending.length)) {
      await flush();
      if (work.stopped()) return 'stopped';
      await work.pause();
    }
    if (rows.length < PAGE) break;
  }
  await work.finish();
  return 'done';
}
