import type { PathContext } from '../../session/session';
import type { JobKind } from './api';

/** A job's shareable address (docs/CONSOLE.md, "Import and export"): it names the job and its domain. */
export const jobHref = (kind: JobKind, id: string, { companyId, domainId }: PathContext) =>
  `/syncing-results-view?${new URLSearchParams({ kind, id, company: companyId, domain: domainId })}`;
