import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * One process per DATA_DIR: PGlite is a single-process database, and a second process on the same
 * files accepts writes that the first one later overwrites. The holder keeps DATA_DIR/server.lock,
 * a JSON file {pid, host, bootId, startedAt} created atomically (link fails if it exists), and
 * refreshes its modification time every REFRESH_MS. A lock left by a process that died is stale:
 * on the same host (and the same boot) when its pid no longer exists; when that cannot be checked
 * (another host on a shared volume, or another container with the same pid) when it has not been
 * refreshed for STALE_MS.
 */

export const LOCK_FILE = 'server.lock';
const REFRESH_MS = 10_000;
const STALE_MS = 60_000;

interface Holder {
  pid: number;
  host: string;
  bootId?: string;
  startedAt: string;
}

export class DataDirInUseError extends Error {
  constructor(
    message: string,
    readonly holder: Holder,
  ) {
    super(message);
    this.name = 'DataDirInUseError';
  }
}

function bootId(): string | undefined {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined; // not Linux
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by another user
  }
}

/** Whether the process that wrote this lock is gone; ageMs: time since the lock was last refreshed. */
function isStale(holder: Holder, ageMs: number): boolean {
  const sameHost = holder.host === os.hostname();
  const boot = bootId();
  if (sameHost && holder.bootId && boot && holder.bootId !== boot) return true; // the machine restarted since
  // our own pid: the holder lived in another pid namespace (a container), where its pid says nothing
  if (sameHost && Number.isInteger(holder.pid) && holder.pid !== process.pid) return !pidExists(holder.pid);
  return ageMs > STALE_MS;
}

/**
 * Takes the lock of dataDir (which must exist), or throws DataDirInUseError naming the process that
 * holds it. Returns the function that releases it (also released when the process exits).
 */
export function lockDataDir(dataDir: string): () => void {
  const lockPath = path.join(path.resolve(dataDir), LOCK_FILE);
  const content = JSON.stringify({ pid: process.pid, host: os.hostname(), bootId: bootId(), startedAt: new Date().toISOString() } satisfies Holder);
  // written in full under a name of our own, then linked into place: the lock file is never half-written
  const tempPath = `${lockPath}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  fs.writeFileSync(tempPath, `${content}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        fs.linkSync(tempPath, lockPath);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 3) throw error;
      }
      let found: string;
      let ageMs: number;
      try {
        found = fs.readFileSync(lockPath, 'utf8');
        ageMs = Date.now() - fs.statSync(lockPath).mtimeMs;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile
        throw error;
      }
      let holder: Holder;
      try {
        holder = JSON.parse(found);
      } catch {
        holder = { pid: NaN, host: '?', startedAt: '?' }; // not ours to read: judged by its age alone
      }
      if (!isStale(holder, ageMs)) throw inUse(dataDir, lockPath, holder, ageMs);
      // Take the stale lock away atomically; if another starter replaced it in between, what was moved is
      // its live lock: put it back, and the next round reports it.
      const moved = `${tempPath}.stale`;
      try {
        fs.renameSync(lockPath, moved);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      if (fs.readFileSync(moved, 'utf8') !== found) {
        try {
          fs.linkSync(moved, lockPath);
        } catch {
          // a third starter took it meanwhile; the next round judges that one
        }
      }
      fs.rmSync(moved, { force: true });
    }
  } finally {
    fs.rmSync(tempPath, { force: true });
  }

  const refresh = setInterval(() => {
    const now = new Date();
    try {
      fs.utimesSync(lockPath, now, now);
    } catch {
      // removed by hand: nothing to refresh
    }
  }, REFRESH_MS);
  refresh.unref();
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearInterval(refresh);
    process.off('exit', release);
    try {
      // only our own lock: never one another process wrote after judging ours stale
      if (fs.readFileSync(lockPath, 'utf8').trim() === content) fs.rmSync(lockPath, { force: true });
    } catch {
      // already gone
    }
  };
  process.on('exit', release);
  return release;
}

function inUse(dataDir: string, lockPath: string, holder: Holder, ageMs: number): DataDirInUseError {
  const sameHost = holder.host === os.hostname() && holder.pid !== process.pid;
  const where = sameHost ? '' : ` on host ${holder.host}`;
  const started = holder.startedAt ? ` (started ${holder.startedAt})` : '';
  const expiry = sameHost
    ? ''
    : ` If that process is gone, the lock expires ${Math.ceil((STALE_MS - ageMs) / 1000)} s from now (${STALE_MS / 1000} s after its last refresh), or delete ${lockPath}.`;
  return new DataDirInUseError(
    `DATA_DIR ${dataDir} is in use by process ${holder.pid}${where}${started}; stop it first, or use PostgreSQL (DATABASE_URL) to run several instances.${expiry}`,
    holder,
  );
}
