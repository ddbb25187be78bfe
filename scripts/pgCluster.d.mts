/** A throw-away PostgreSQL cluster (scripts/pgCluster.mjs). */
export interface Cluster {
  url: string;
  version: string;
  user: string;
  logFile: string;
  restart(): void;
  halt(): void;
  start(): void;
  stop(): void;
}
export function findBinDir(): string;
export function startCluster(): Promise<Cluster>;
