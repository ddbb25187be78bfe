// Bench-only preload: `npm run load` starts the server with `--import` of this file, so that it can
// read how long the server's event loop was held up, without any code for it in server/.
//
// LOAD_ELD_DIR names a folder. The load test writes the name of the phase it is running to `phase`
// there; when the name changes, this process writes its figures for the phase that ended to
// `<pid>.<phase>.json` and starts a new histogram. One file per process, so cluster workers (which
// inherit the --import) report too; `<pid>.alive` tells the load test how many processes run.
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const dir = process.env.LOAD_ELD_DIR;
// Preloads run in worker threads too (the embedded database's, for one): the server's event loop is
// the main thread's, and a worker would write over its files (same pid).
if (dir && isMainThread) {
  const RESOLUTION_MS = 10;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  // a sample is the time between two ticks 10 ms apart: the delay is what exceeds the 10 ms
  const delay = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  let phase = '';
  fs.writeFileSync(path.join(dir, `${process.pid}.alive`), '');
  // polling a tiny file every 200 ms costs microseconds; a signal or IPC would not reach cluster workers
  setInterval(() => {
    let next;
    try {
      next = fs.readFileSync(path.join(dir, 'phase'), 'utf8').trim();
    } catch {
      return;
    }
    if (next === phase) return;
    if (phase) {
      const figures = { pid: process.pid, p50: delay(histogram.percentile(50)), p99: delay(histogram.percentile(99)), max: delay(histogram.max) };
      fs.writeFileSync(path.join(dir, `${process.pid}.${phase}.json`), JSON.stringify(figures));
    }
    histogram.reset();
    phase = next;
  }, 200).unref();
}
