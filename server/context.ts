import type { ServerConfig } from './config.js';
import type { Database } from './db/index.js';
import type { SigningKeys } from './keys.js';

/** What every route needs, decorated on the Fastify instance as `app.ctx`. */
export interface AppContext {
  db: Database;
  config: ServerConfig;
  keys: SigningKeys;
}

/** The signed-in caller of the management API, read from the bearer access token. */
export interface Principal {
  /** The user's id in her domain (companyId and domainId complete it). */
  userId: string;
  /** Her subject: the token's sub, unique in the whole provider. */
  subject: string;
  companyId: string;
  domainId: string;
  clientId: string;
  grantId: string;
  scopes: readonly string[];
  /** Expiry of the access token, seconds since the epoch. */
  exp: number;
}

/** Is this user of that domain the caller herself? (Nobody deletes, blocks or purges herself; her own new password keeps her session.) */
export const isCaller = (caller: Principal, at: { companyId: string; domainId: string }, userId: string) =>
  caller.companyId === at.companyId && caller.domainId === at.domainId && caller.userId === userId;

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
  interface FastifyRequest {
    principal: Principal;
    /** Set once the caller's grant, user and the path's company/domain have been checked (guard.ts). */
    accessChecked: boolean;
  }
  interface FastifyContextConfig {
    /** The route's own statement checks access (a list's count, a GET's record): one database round trip fewer; guard.ts. */
    accessInStatement?: boolean;
  }
}
