import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyRequest } from 'fastify';

/** Where the request being answered came from: what a new sign-in (oauth_grants) records. */
export interface RequestOrigin {
  ip: string;
  userAgent?: string;
}

const origins = new AsyncLocalStorage<RequestOrigin>();

/** Runs `work` (the request's handling) with its origin readable by the storage adapter. */
export const withRequestOrigin = <T>(origin: RequestOrigin, work: () => T): T => origins.run(origin, work);

export const requestOrigin = (): RequestOrigin | undefined => origins.getStore();

/** The origin of a Fastify request: its client address (TRUST_PROXY applied) and user agent. */
export const originOf = (request: FastifyRequest): RequestOrigin => ({ ip: request.ip, userAgent: request.headers['user-agent'] });
