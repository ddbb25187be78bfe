/**
 * The import and export jobs of a domain under the management API (docs/CONSOLE.md, "Import and
 * export"): the calls of the console's screens, through the signed-in http client.
 */
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import { getSession, type PathContext } from '../../session/session';

export type JobKind = 'import' | 'export';
export type JobStatus = 'uploading' | 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
export type FileFormat = 'csv' | 'jsonl';
export type MatchBy = 'none' | 'id' | 'email';

export interface Job {
  id: string;
  kind: JobKind;
  status: JobStatus;
  options: {
    format: FileFormat;
    dryRun?: boolean;
    match?: MatchBy;
    groups?: boolean;
    mapping?: Record<string, string>;
    fileName?: string;
    passwordHashes?: boolean;
  };
  rowsRead: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  bytes?: number;
  error?: string | null;
  /** Who started it. */
  createdBy?: { userId?: string | null; companyId?: string | null; domainId?: string | null } | null;
  createdAt: string;
  startedAt?: string | null;
  finishedAt?: string | null;
}

export interface ImportOptions {
  format: FileFormat;
  dryRun: boolean;
  match: MatchBy;
  groups: boolean;
  mapping: Record<string, string>;
  /** Shown in the jobs list. */
  fileName?: string;
}

export interface ExportOptions {
  format: FileFormat;
  groups: boolean;
  passwordHashes: boolean;
}

/** A job still moving: its screen asks for it again. */
export const isActive = (job: Job) => job.status === 'uploading' || job.status === 'queued' || job.status === 'running';

const collection = (kind: JobKind) => (kind === 'import' ? 'importJobs' : 'exportJobs');

export const jobsUrl = ({ companyId, domainId }: PathContext, kind: JobKind) =>
  `${config.apiBase}/companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/${collection(kind)}`;

export const jobUrl = (context: PathContext, kind: JobKind, id: string) => `${jobsUrl(context, kind)}/${encodeURIComponent(id)}`;

/** The newest jobs of a kind (the list's first page). */
export async function listJobs(context: PathContext, kind: JobKind, count = 50): Promise<Job[]> {
  const { json } = await httpClient(`${jobsUrl(context, kind)}?${new URLSearchParams({ range: JSON.stringify([0, count - 1]) })}`);
  return ((json ?? []) as Job[]).map((job) => ({ ...job, kind }));
}

export async function readJob(context: PathContext, kind: JobKind, id: string): Promise<Job> {
  const { json } = await httpClient(jobUrl(context, kind, id));
  return { ...(json as Job), kind };
}

/** Uploads the file as the request's body (the provider streams it) and starts the job. */
export async function startImport(context: PathContext, file: Blob, options: ImportOptions): Promise<Job> {
  const query = new URLSearchParams({
    format: options.format,
    dryRun: String(options.dryRun),
    match: options.match,
    groups: String(options.groups),
    mapping: JSON.stringify(options.mapping),
    ...(options.fileName ? { fileName: options.fileName.slice(0, 255) } : {}),
  });
  const type = options.format === 'csv' ? 'text/csv' : 'application/x-ndjson';
  const { json } = await httpClient(`${jobsUrl(context, 'import')}?${query}`, { method: 'POST', body: file, headers: { 'Content-Type': type } });
  return { ...(json as Job), kind: 'import' };
}

/** A finished dry run, for real: a new job on the same stored file and options. */
export async function importDryRun(context: PathContext, id: string): Promise<Job> {
  const { json } = await httpClient(`${jobUrl(context, 'import', id)}/import`, { method: 'POST' });
  return { ...(json as Job), kind: 'import' };
}

export async function cancelJob(context: PathContext, id: string): Promise<Job> {
  const { json } = await httpClient(`${jobUrl(context, 'import', id)}/cancel`, { method: 'POST' });
  return { ...(json as Job), kind: 'import' };
}

export async function startExport(context: PathContext, options: ExportOptions): Promise<Job> {
  const { json } = await httpClient(jobsUrl(context, 'export'), { method: 'POST', body: JSON.stringify(options) });
  return { ...(json as Job), kind: 'export' };
}

/**
 * Saves what the provider answers at `url` as a file: read with the session's token (the address
 * needs it, so a plain link cannot), whole, then handed to the browser's download.
 */
export async function download(url: string, fileName: string): Promise<void> {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${getSession().accessToken ?? ''}` } });
  if (!response.ok) {
    const body = await response.text();
    let message = response.statusText || `HTTP ${response.status}`;
    try {
      message = (JSON.parse(body) as { message?: string }).message ?? message;
    } catch {
      // not JSON: the status says it
    }
    throw new Error(message);
  }
  const href = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = href;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}
