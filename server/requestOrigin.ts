import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyRequest } from 'fastify';

/** Where the request being answered came from: what a new sign-in (oauth_grants) records. */
export interface RequestOrigin {
  ip: string;
  userAgent?: string;
}

interface RequestScope extends RequestOrigin {
  /** Reads made once per request (memoized). */
  reads: Map<string, Promise<unknown>>;
}

const origins = new AsyncLocalStorage<RequestScope>();

/** Runs `work` (the request's handling) with its origin readable by the storage adapter. */
export const withRequestOrigin = <T>(origin: RequestOrigin, work: () => T): T => origins.run({ ...origin, reads: new Map() }, work);

export const requestOrigin = (): RequestOrigin | undefined => origins.getStore();

/**
 * `read()` once per request under `key`: oidc-provider asks for the same client, API and scopes
 * several times while answering one token request (client authentication, resource server, token
 * claims), and PGlite answers one statement at a time. Outside a request, just `read()`.
 */
export function oncePerRequest<T>(key: string, read: () => Promise<T>): Promise<T> {
  const reads = origins.getStore()?.reads;
  if (!reads) return read();
  let pending = reads.get(key) as Promise<T> | undefined;
  if (!pending) {
    pending = read();
    reads.set(key, pending);
    // a failed read is not remembered
    pending.catch(() => reads.delete(key));
  }
  return pending;
}

/** The origin of a Fastify request: its client address (TRUST_PROXY applied) and user agent. */
export const originOf = (request: FastifyRequest): RequestOrigin => ({ ip: request.ip, userAgent: request.headers['user-agent'] });

/** Forgets what `oncePerRequest` read under `key` (the request just changed it). */
export function forgetRead(key: string): void {
  origins.getStore()?.reads.delete(key);
}
