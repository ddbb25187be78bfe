// The embedded database (PGlite: PostgreSQL compiled to WebAssembly) on its own thread. PGlite runs
// every statement synchronously in WebAssembly: on the server's thread, a 200 ms query would stall
// every request for 200 ms. Here it stalls only the queries queued behind it. server/db/index.ts
// (PgliteDatabase) is the other end: it sends one message per statement and keeps a transaction's
// statements together. Plain JavaScript so that it loads the same under tsx, vitest and node.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

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

const { dataDir, loadDataDir } = workerData;
let pglite;
try {
  pglite = await PGlite.create(dataDir, { extensions: { pg_trgm }, loadDataDir });
  parentPort.postMessage({ ready: true });
} catch (error) {
  parentPort.postMessage({ ready: false, error: errorData(error) });
  process.exit(1);
}

parentPort.on('message', async ({ id, op, text, params }) => {
  try {
    if (op === 'query') {
      const result = await pglite.query(text, params);
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
