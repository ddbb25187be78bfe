import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, LOCK_FILE, lockDataDir } from '../../server/db/dataDirLock.js';
import { openDatabase } from '../../server/db/index.js';
import { type Program, spawnProgram, startProgram, stopProgram } from './program.js';

/**
 * One process per DATA_DIR (embedded database): the real program (server/main.ts through tsx) refuses
 * to start on a data folder another live process holds, naming it, and starts after that one stopped
 * or died.
 */

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));
function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-lock-'));
  dirs.push(dir);
  return dir;
}

async function jwksStatus(program: Program) {
  return (await fetch(`${program.baseUrl}/oauth/jwks`)).status;
}

describe('one process per DATA_DIR', () => {
  it('refuses a second process at once, naming the first, which keeps serving; starts again after a SIGTERM stop', async () => {
    const dataDir = tempDir();
    const first = await startProgram(dataDir);
    try {
      const lock = JSON.parse(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8'));
      expect(lock).toMatchObject({ pid: first.child.pid, host: os.hostname() });

      const started = Date.now();
      const second = await spawnProgram(dataDir);
      const timer = setTimeout(() => second.child.kill('SIGKILL'), 30_000);
      const result = await second.exited;
      clearTimeout(timer);
      expect(result, second.output()).toEqual({ code: 1, signal: null });
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(second.output()).toContain(`DATA_DIR ${dataDir} is in use by process ${first.child.pid} (started ${lock.startedAt})`);
      expect(second.output()).toContain('DATABASE_URL');
      expect(second.output()).not.toContain('IAM Console:');

      expect(await jwksStatus(first)).toBe(200);
      // the refused start left the lock of the first alone
      expect(JSON.parse(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')).pid).toBe(first.child.pid);
    } finally {
      const { code } = await stopProgram(first);
      expect(code, first.output()).toBe(0);
    }
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);

    const again = await startProgram(dataDir);
    try {
      expect(again.output()).not.toContain('First run');
      expect(await jwksStatus(again)).toBe(200);
    } finally {
      expect((await stopProgram(again)).code, again.output()).toBe(0);
    }
  }, 240_000);

  it('starts after the previous process was killed (SIGKILL): its lock is stale', async () => {
    const dataDir = tempDir();
    const killed = await startProgram(dataDir);
    expect(await jwksStatus(killed)).toBe(200);
    expect(await stopProgram(killed, 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')).pid).toBe(killed.child.pid);

    const next = await startProgram(dataDir);
    try {
      expect(await jwksStatus(next)).toBe(200);
      expect(JSON.parse(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')).pid).toBe(next.child.pid);
    } finally {
      expect((await stopProgram(next)).code, next.output()).toBe(0);
    }
  }, 240_000);
});

describe('the DATA_DIR lock', () => {
  it('is taken by openDatabase with a data folder, refuses a second open, and goes with close()', async () => {
    const dataDir = tempDir();
    const db = await openDatabase({ dataDir });
    const lockPath = path.join(dataDir, LOCK_FILE);
    try {
      expect(JSON.parse(fs.readFileSync(lockPath, 'utf8')).pid).toBe(process.pid);
      await expect(openDatabase({ dataDir })).rejects.toThrow(DataDirInUseError);
      expect(fs.existsSync(lockPath)).toBe(true);
    } finally {
      await db.close();
    }
    expect(fs.existsSync(lockPath)).toBe(false);
    const reopened = await openDatabase({ dataDir });
    await reopened.close();
    expect(fs.existsSync(lockPath)).toBe(false);
  }, 60_000);

  it('judges a lock by its pid on this host, and by its last refresh when the pid says nothing', () => {
    const dataDir = tempDir();
    const lockPath = path.join(dataDir, LOCK_FILE);
    const write = (holder: object, ageSeconds = 0) => {
      fs.writeFileSync(lockPath, JSON.stringify(holder));
      const then = new Date(Date.now() - ageSeconds * 1000);
      fs.utimesSync(lockPath, then, then);
    };
    const startedAt = '2026-01-01T00:00:00.000Z';

    // a live process on this host (our parent): in use, however old the file
    write({ pid: process.ppid, host: os.hostname(), startedAt }, 3600);
    expect(() => lockDataDir(dataDir)).toThrow(`is in use by process ${process.ppid} (started ${startedAt})`);

    // a pid that does not exist: stale
    const dead = spawnDeadPid();
    write({ pid: dead, host: os.hostname(), startedAt });
    lockDataDir(dataDir)();
    expect(fs.existsSync(lockPath)).toBe(false);

    // another host: in use while refreshed, stale after a minute without
    write({ pid: 1, host: 'elsewhere.example', startedAt }, 5);
    expect(() => lockDataDir(dataDir)).toThrow(/in use by process 1 on host elsewhere\.example .*the lock expires 55 s from now/);
    write({ pid: 1, host: 'elsewhere.example', startedAt }, 61);
    const release = lockDataDir(dataDir);
    expect(JSON.parse(fs.readFileSync(lockPath, 'utf8')).pid).toBe(process.pid);
    release();
    expect(fs.existsSync(lockPath)).toBe(false);

    // an unreadable file: judged by its age alone
    fs.writeFileSync(lockPath, 'garbage');
    expect(() => lockDataDir(dataDir)).toThrow(DataDirInUseError);
    const old = new Date(Date.now() - 61_000);
    fs.utimesSync(lockPath, old, old);
    lockDataDir(dataDir)();
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });
});

/** A pid that belonged to a process which has exited (and was reaped). */
function spawnDeadPid(): number {
  return spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid!;
}
