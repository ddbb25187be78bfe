import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { recordAudit } from '../accounts/audit.js';
import { transactionSettings, type Queryable } from '../db/index.js';
import { badRequest, forbidden, HttpError, notFound } from '../errors.js';
import { checkAccess, statementAccess } from '../api/guard.js';
import { csvLine } from '../api/list.js';
import { addListRoute, findRecordChecked, recordSchema, selectList } from '../api/resource.js';
import { errorResponses, params } from '../api/schemas.js';
import { parseMapping } from './rows.js';
import { wakeJobRunners } from './runner.js';
import { CHUNK_BYTES, type ExportOptions, type ImportOptions, INPUT, jobDefinition, type JobParams, newJobId, OUTPUT, readChunks } from './store.js';

/**
 * The import and export jobs of a domain's users (docs/CONSOLE.md, "Import and export"):
 * `importJobs` (users:import) takes the raw file as the request's body, streamed into the job's
 * pieces as it arrives, and queues the job for the runner (runner.ts); `exportJobs` (users:export)
 * queues an export whose file is downloaded once done. Every job is found by its company, domain,
 * kind and id: another tenant's is a 404.
 */

/** The largest file an import takes. */
export const MAX_IMPORT_BYTES = 2 * 1024 ** 3;

type JobPath = JobParams & { jobId: string };

const importDefinition = { ...jobDefinition, name: 'importJobs' };
const exportDefinition = { ...jobDefinition, name: 'exportJobs' };
const SELECT = selectList(jobDefinition);

const importQuery = {
  type: 'object',
  properties: {
    format: { type: 'string', enum: ['csv', 'jsonl'], default: 'csv' },
    dryRun: { type: 'boolean', default: false },
    match: { type: 'string', enum: ['none', 'id', 'email'], default: 'none', description: 'which existing user a row updates; none: a row of an existing user is skipped' },
    groups: { type: 'boolean', default: false, description: 'the groups column creates missing groups by name and adds memberships' },
    mapping: { type: 'string', maxLength: 20000, description: 'URL-encoded JSON object {"source column or key": "field"}' },
    fileName: { type: 'string', maxLength: 255 },
  },
  additionalProperties: false,
} as const;

type ImportQuery = { format: 'csv' | 'jsonl'; dryRun: boolean; match: 'none' | 'id' | 'email'; groups: boolean; mapping?: string; fileName?: string };

/** The caller as the audit trail names her (with the roles the guard found): the job's creator, whose action its end record is. */
function creator(request: FastifyRequest): string {
  const actor = transactionSettings.getStore()?.get('iam.actor');
  if (actor) return String(actor);
  const { userId, companyId, domainId, clientId } = request.principal;
  return JSON.stringify({ userId, companyId, domainId, clientId, ip: request.ip });
}

export async function jobRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  const domainPath = '/companys/:companyId/domainNames/:domainId';
  const tags = ['users'];
  const job = recordSchema(jobDefinition);
  const jobParams = params('companyId', 'domainId', 'jobId');

  /** One job of the path's domain and kind, after the guard's check (in the same statement). */
  const findJob = (request: FastifyRequest, kind: 'import' | 'export') => {
    const { companyId, domainId, jobId } = request.params as JobPath;
    return findRecordChecked<Record<string, unknown>>(
      db,
      kind === 'import' ? importDefinition : exportDefinition,
      { where: kind === 'import' ? IMPORT_SCOPE : EXPORT_SCOPE, values: [companyId, domainId] },
      jobId,
      statementAccess(request),
    );
  };
  const IMPORT_SCOPE = ['t.company_id = $1', 't.domain_id = $2', `t.kind = 'import'`];
  const EXPORT_SCOPE = ['t.company_id = $1', 't.domain_id = $2', `t.kind = 'export'`];
  const reread = async (tx: Queryable, at: JobParams, jobId: string) =>
    (await tx.query(`SELECT ${SELECT} FROM user_jobs t WHERE t.company_id = $1 AND t.domain_id = $2 AND t.id = $3`, [at.companyId, at.domainId, jobId])).rows[0];

  /** Password hashes leave only for a caller holding roles:owner over the domain (403 with the sentence). */
  const ownerOnly = async (request: FastifyRequest) => {
    const { companyId, domainId } = request.params as JobParams;
    try {
      await checkAccess(db, request.principal, companyId, domainId, 'roles:owner');
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 403) throw error;
      throw forbidden('passwordHashes: only an Owner (roles:owner) exports password hashes; export without them').as('job.hashesOwnerOnly');
    }
  };

  /** Creates a job row with its audit record ("create", the options: who started what, when). */
  const createJob = async (request: FastifyRequest, kind: 'import' | 'export', status: 'uploading' | 'queued', options: object, bytes = 0) => {
    const at = request.params as JobParams;
    const jobId = newJobId();
    await db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO user_jobs (company_id, domain_id, id, kind, status, options, created_by, bytes) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8)`,
        [at.companyId, at.domainId, jobId, kind, status, JSON.stringify(options), creator(request), bytes],
      );
      await recordAudit(tx, { ...at, resourceType: kind === 'import' ? 'importJobs' : 'exportJobs', resourceId: jobId, action: 'create', changes: { options: { after: options } } });
    });
    return jobId;
  };

  for (const [kind, definition, permission, scope] of [
    ['import', importDefinition, 'users:import', IMPORT_SCOPE],
    ['export', exportDefinition, 'users:export', EXPORT_SCOPE],
  ] as const) {
    const path = `${domainPath}/${definition.name}`;
    addListRoute(app, definition, { path, tags, scope: { params: ['companyId', 'domainId'], where: scope }, permission, summary: `The domain's ${kind} jobs, newest first` });

    app.get<{ Params: JobPath }>(
      `${path}/:jobId`,
      { config: { permission, accessInStatement: true }, schema: { tags, summary: `One ${kind} job: its status and progress`, params: jobParams, response: { 200: job, ...errorResponses } } },
      (request) => findJob(request, kind),
    );

    app.post<{ Params: JobPath }>(
      `${path}/:jobId/cancel`,
      {
        config: { permission },
        schema: { tags, summary: `Cancels the ${kind} job (rows already committed stay)`, params: jobParams, response: { 200: job, ...errorResponses } },
      },
      async (request) => {
        const { companyId, domainId, jobId } = request.params;
        return db.transaction(async (tx) => {
          const { rows } = await tx.query<{ status: string }>(`SELECT status FROM user_jobs WHERE company_id = $1 AND domain_id = $2 AND id = $3 AND kind = $4 FOR UPDATE`, [companyId, domainId, jobId, kind]);
          if (!rows[0]) throw notFound(`job ${jobId}`);
          if (!['uploading', 'queued', 'running'].includes(rows[0].status)) throw new HttpError(409, `job ${jobId} is ${rows[0].status}: only a job that has not finished can be cancelled`).as('job.cancelFinished', { id: jobId, status: rows[0].status });
          await tx.query(`UPDATE user_jobs SET status = 'cancelled', finished_at = now(), lease_owner = NULL, lease_until = NULL WHERE company_id = $1 AND domain_id = $2 AND id = $3`, [companyId, domainId, jobId]);
          await recordAudit(tx, { companyId, domainId, resourceType: `${kind}Jobs`, resourceId: jobId, action: 'cancel', changes: { status: { before: rows[0].status, after: 'cancelled' } } });
          return reread(tx, request.params, jobId);
        });
      },
    );
  }

  // The upload: any content type, never parsed or buffered (its own plugin: the other routes keep their JSON parser).
  await app.register(async (upload) => {
    upload.removeAllContentTypeParsers();
    // a function, not the stream itself: the API's input checks walk an object body's keys
    upload.addContentTypeParser('*', (_request, payload, done) => done(null, () => payload));
    upload.post<{ Params: JobParams; Querystring: ImportQuery }>(
      `${domainPath}/importJobs`,
      {
        config: { permission: 'users:import' },
        schema: {
          tags,
          summary: 'Starts an import of users from the file sent as the body (CSV or JSON Lines, at most 2 GB; streamed into the job, then run in the background)',
          params: params('companyId', 'domainId'),
          querystring: importQuery,
          response: { 201: job, 413: errorResponses[400], ...errorResponses },
        },
      },
      async (request, reply) => {
        const at = request.params;
        const query = request.query;
        // its refusals carry their code (job.mapping*)
        const mapping = parseMapping(query.mapping);
        const tooLarge = () => new HttpError(413, `The file is larger than 2 GB: split it into several imports`).as('job.fileTooLarge');
        if (Number(request.headers['content-length'] ?? 0) > MAX_IMPORT_BYTES) throw tooLarge();
        const body = request.body as (() => Readable) | undefined;
        const options: ImportOptions = { format: query.format, dryRun: query.dryRun, match: query.match, groups: query.groups, mapping, ...(query.fileName ? { fileName: query.fileName } : {}) };
        const jobId = await createJob(request, 'import', 'uploading', options);
        const key = [at.companyId, at.domainId, jobId];
        let seq = 0;
        let bytes = 0;
        const store = (data: Buffer) =>
          db.query(
            `WITH piece AS (INSERT INTO user_job_chunks (company_id, domain_id, job_id, part, seq, data) VALUES ($1, $2, $3, '${INPUT}', $4, $5))
             UPDATE user_jobs SET bytes = bytes + $6 WHERE company_id = $1 AND domain_id = $2 AND id = $3`,
            [...key, seq++, data, data.length],
          );
        try {
          let parts: Buffer[] = [];
          let size = 0;
          for await (const piece of body ? body() : []) {
            const buffer = piece as Buffer;
            bytes += buffer.length;
            if (bytes > MAX_IMPORT_BYTES) throw tooLarge();
            // CSV and JSON Lines are UTF-8 text: a NUL byte is a binary (or UTF-16) file, refused whole
            if (buffer.includes(0)) throw badRequest('The file contains a NUL byte: send a UTF-8 CSV or JSON Lines file').as('job.fileNul');
            parts.push(buffer);
            size += buffer.length;
            if (size >= CHUNK_BYTES) {
              const all = Buffer.concat(parts);
              let offset = 0;
              for (; all.length - offset >= CHUNK_BYTES; offset += CHUNK_BYTES) await store(all.subarray(offset, offset + CHUNK_BYTES));
              parts = [all.subarray(offset)];
              size = all.length - offset;
            }
          }
          if (size > 0) await store(Buffer.concat(parts));
          if (bytes === 0) throw badRequest('The file is empty: send the CSV or JSON Lines file as the body').as('job.fileEmpty');
        } catch (error) {
          // what was stored of an interrupted or refused upload goes at once
          await db.query(`DELETE FROM user_job_chunks WHERE company_id = $1 AND domain_id = $2 AND job_id = $3`, key).catch(() => undefined);
          const message = error instanceof HttpError ? error.message : 'the upload was interrupted';
          await db
            .query(`UPDATE user_jobs SET status = 'failed', error = $4, finished_at = now() WHERE company_id = $1 AND domain_id = $2 AND id = $3 AND status = 'uploading'`, [...key, message])
            .catch(() => undefined);
          throw error;
        }
        await db.query(`UPDATE user_jobs SET status = 'queued' WHERE company_id = $1 AND domain_id = $2 AND id = $3 AND status = 'uploading'`, key);
        wakeJobRunners(db);
        return reply.status(201).send(await reread(db, at, jobId));
      },
    );
  });

  app.post<{ Params: JobPath }>(
    `${domainPath}/importJobs/:jobId/import`,
    {
      config: { permission: 'users:import' },
      schema: { tags, summary: 'Runs a finished dry run for real: a new job on the same stored file and options', params: jobParams, response: { 201: job, ...errorResponses } },
    },
    async (request, reply) => {
      const { companyId, domainId, jobId } = request.params;
      const { rows } = await db.query<{ status: string; options: ImportOptions; bytes: number }>(
        `SELECT status, options, bytes::float8 AS bytes FROM user_jobs WHERE company_id = $1 AND domain_id = $2 AND id = $3 AND kind = 'import'`,
        [companyId, domainId, jobId],
      );
      const source = rows[0];
      if (!source) throw notFound(`job ${jobId}`);
      if (!source.options.dryRun) throw new HttpError(409, `job ${jobId} is not a dry run: start a new import instead`).as('job.notDryRun', { id: jobId });
      if (source.status !== 'done') throw new HttpError(409, `job ${jobId} is ${source.status}: only a finished dry run can be imported`).as('job.dryRunNotDone', { id: jobId, status: source.status });
      const options: ImportOptions = { ...source.options, dryRun: false, inputJob: source.options.inputJob ?? jobId };
      const created = await createJob(request, 'import', 'queued', options, source.bytes);
      wakeJobRunners(db);
      return reply.status(201).send(await reread(db, request.params, created));
    },
  );

  app.get<{ Params: JobPath }>(
    `${domainPath}/importJobs/:jobId/errors`,
    {
      config: { permission: 'users:import', accessInStatement: true },
      schema: { tags, summary: "The import's refused rows as CSV: row, field, message", params: jobParams, produces: ['text/csv'], response: errorResponses },
    },
    async (request, reply) => {
      await findJob(request, 'import');
      const { companyId, domainId, jobId } = request.params;
      async function* lines() {
        yield csvLine(['row', 'field', 'message']);
        let after = 0;
        for (;;) {
          const { rows } = await db.query<{ n: number; field: string | null; message: string }>(
            `SELECT row_number::float8 AS n, field, message FROM user_job_errors WHERE company_id = $1 AND domain_id = $2 AND job_id = $3 AND row_number > $4 ORDER BY row_number LIMIT 1000`,
            [companyId, domainId, jobId, after],
          );
          // formulas defused (list.ts csvCell): a message may quote the file's own text
          if (rows.length) yield rows.map((row) => csvLine([row.n, row.field ?? '', row.message])).join('');
          if (rows.length < 1000) return;
          after = rows[rows.length - 1].n;
        }
      }
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="import-${jobId}-errors.csv"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(lines()));
    },
  );

  app.post<{ Params: JobParams; Body: { format: 'csv' | 'jsonl'; passwordHashes: boolean; groups: boolean } }>(
    `${domainPath}/exportJobs`,
    {
      config: { permission: 'users:export' },
      schema: {
        tags,
        summary: "Starts an export of the domain's users (CSV or JSON Lines, the columns an import takes); password hashes only for an Owner, audited",
        params: params('companyId', 'domainId'),
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            format: { type: 'string', enum: ['csv', 'jsonl'], default: 'csv' },
            passwordHashes: { type: 'boolean', default: false },
            groups: { type: 'boolean', default: false },
          },
        },
        response: { 201: job, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { companyId, domainId } = request.params;
      const body = request.body ?? {};
      const options: ExportOptions = { format: body.format ?? 'csv', passwordHashes: body.passwordHashes === true, groups: body.groups === true };
      if (options.passwordHashes) await ownerOnly(request);
      const jobId = await createJob(request, 'export', 'queued', options);
      wakeJobRunners(db);
      return reply.status(201).send(await reread(db, request.params, jobId));
    },
  );

  app.get<{ Params: JobPath }>(
    `${domainPath}/exportJobs/:jobId/file`,
    {
      config: { permission: 'users:export', accessInStatement: true },
      schema: { tags, summary: "The export's file (streamed)", params: jobParams, produces: ['text/csv', 'application/x-ndjson'], response: errorResponses },
    },
    async (request, reply) => {
      const found = (await findJob(request, 'export')) as { status: string; options: ExportOptions };
      // a file with password hashes is an Owner's to download too, not only to ask for
      if (found.options.passwordHashes) await ownerOnly(request);
      if (found.status !== 'done') throw new HttpError(409, `job ${request.params.jobId} is ${found.status}: its file is there once it is done`).as('job.exportNotDone', { id: request.params.jobId, status: found.status });
      const csv = found.options.format === 'csv';
      return reply
        .header('content-type', csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="users-${request.params.domainId}-${request.params.jobId}.${csv ? 'csv' : 'jsonl'}"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(readChunks(db, request.params, OUTPUT)));
    },
  );
}
