// The embedded database (PGlite: PostgreSQL compiled to WebAssembly) on its own thread. PGlite runs
// every statement synchronously in WebAssembly: on the server's thread, a 200 ms query would stall
// every request for 200 ms. Here it stalls only the queries queued behind it. server/db/index.ts
// (PgliteDatabase) is the other end: it sends one message per statement and keeps a transaction's
// statements together. Plain JavaScript so that it loads the same under tsx, vitest and node.
import fs from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, parse, protocol } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pgUtils from 'pg/lib/utils.js';

/** A PGlite error as plain data: message plus PostgreSQL's fields (code, constraint, detail, ...). */
function errorData(error) {
  const data = { message: error?.message ?? String(error), name: error?.name ?? 'Error' };
  if (error && typeof error === 'object') {
    for (const [key, value] of Object.entries(error)) {
      if (value === undefined || typeof value === 'function' || typeof value === 'object') continue;
      data[key] = value;
    }
  }
  return data;
}

/**
 * PGlite starts PostgreSQL with fsync off (-F), and its Node file system has no fsync at all: a
 * commit reaches the operating system, so a killed process loses nothing, but a power cut or an OS
 * crash can lose the last commits or leave the data files behind a checkpoint. With `sync` the
 * server turns both on: PostgreSQL then syncs the write-ahead log at every commit (wal_sync_method
 * fsync, which goes through the file system's fsync) and the data files at every checkpoint,
 * exactly as a PostgreSQL server does on its own disks. Cost: docs/PERFORMANCE.md ("Durability").
 */
function durableStartParams() {
  return [...PGlite.defaultStartParams.filter((param) => param !== '-F'), '-c', 'wal_sync_method=fsync'];
}

function makeFsyncReal(db) {
  db.Module.NODEFS.stream_ops.fsync = (stream) => fs.fsyncSync(stream.nfd);
}

/** What was written before fsync became real (initdb, a loaded dump, recovery) is synced once, now. */
function syncTree(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) syncTree(full);
    else if (entry.isFile()) syncFile(full);
  }
  syncFile(dir);
}

function syncFile(file) {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

const { dataDir, loadDataDir, sync } = workerData;
const durable = Boolean(sync && dataDir);
let pglite;
try {
  pglite = await PGlite.create(dataDir, {
    extensions: { pg_trgm },
    loadDataDir,
    ...(durable ? { startParams: durableStartParams() } : {}),
  });
  if (durable) {
    makeFsyncReal(pglite);
    syncTree(dataDir);
  }
  parentPort.postMessage({ ready: true });
} catch (error) {
  parentPort.postMessage({ ready: false, error: errorData(error) });
  process.exit(1);
}

/**
 * Statements as node-postgres sends them to a PostgreSQL server, in one call into WebAssembly:
 * Parse (the first time a text is seen), Bind, Describe, Execute, Sync. PGlite's own query() makes
 * six calls, the first two to learn the parameters' types, and parses and plans the text every
 * time; this costs a third of that for a repeated statement (docs/PERFORMANCE.md). Parameters are
 * serialized by node-postgres's own prepareValue, so both databases read a value alike. Each text
 * gets a named prepared statement, up to MAX_STATEMENTS; then all are deallocated and naming starts
 * over, so that a flood of distinct texts (list filters) cannot grow the backend's memory.
 */
const MAX_STATEMENTS = 1000;
const statementNames = new Map();
let nextStatement = 1;
const { serialize } = protocol;

async function send(parts) {
  return (await pglite.execProtocol(Buffer.concat(parts.map((part) => Buffer.from(part))))).messages;
}

/** Best effort: the statement's own error is the one to report. */
async function close(name) {
  await send([serialize.close({ type: 'S', name }), serialize.sync()]).catch(() => undefined);
}

/** As server/db/index.ts CUSTOM_PLAN: such a text runs as the unnamed statement, planned for its values every time. */
const CUSTOM_PLAN = '/* custom plan */ ';

async function runStatement(text, params) {
  if (text.startsWith(CUSTOM_PLAN)) {
    const parts = [serialize.parse({ name: '', text }), serialize.bind({ statement: '', values: params.map((value) => pgUtils.prepareValue(value)) })];
    return parse.parseResults(await send([...parts, serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]), pglite.parsers)[0];
  }
  let name = statementNames.get(text);
  const parts = [];
  if (!name) {
    if (statementNames.size >= MAX_STATEMENTS) {
      // (in an aborted transaction this fails too: the next statement tries again)
      const cleared = await send([serialize.query('DEALLOCATE ALL')]).then(() => true, () => false);
      if (cleared) statementNames.clear();
    }
    name = `s${nextStatement++}`;
    parts.push(serialize.parse({ name, text }));
  }
  parts.push(serialize.bind({ statement: name, values: params.map((value) => pgUtils.prepareValue(value)) }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync());
  try {
    const messages = await send(parts);
    statementNames.set(text, name);
    return parse.parseResults(messages, pglite.parsers)[0];
  } catch (error) {
    if (statementNames.get(text) !== name) {
      // prepared now, or the Parse itself failed: closing a statement that does not exist is no error
      await close(name);
    } else if (error?.code === '0A000' || error?.code === '26000') {
      // a column's type changed under the prepared statement (a migration), or someone deallocated
      // it: prepare the text again under a new name
      statementNames.delete(text);
      await close(name);
      return runStatement(text, params);
    }
    throw error;
  }
}

parentPort.on('message', async ({ id, op, text, params }) => {
  try {
    if (op === 'query') {
      const result = await runStatement(text, params ?? []);
      // PGlite reports affectedRows 0 for a SELECT: count the returned rows then
      parentPort.postMessage({ id, rows: result.rows, rowCount: result.affectedRows || result.rows.length });
    } else if (op === 'exec') {
      await pglite.exec(text);
      parentPort.postMessage({ id });
    } else if (op === 'dump') {
      parentPort.postMessage({ id, dump: await pglite.dumpDataDir('none') });
    } else if (op === 'close') {
      await pglite.close();
      parentPort.postMessage({ id });
      parentPort.close();
    } else {
      parentPort.postMessage({ id, error: { message: `unknown operation ${op}` } });
    }
  } catch (error) {
    parentPort.postMessage({ id, error: errorData(error) });
  }
});
