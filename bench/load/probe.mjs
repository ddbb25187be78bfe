// Worker thread of `npm run load`: asks a cheap endpoint every ~50 ms on its own keep-alive
// connection while a phase runs. It has its own event loop, so the load generator's work on the
// main thread does not show up in these latencies (the CPU is still shared).
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { url } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let running = false;
let loop = Promise.resolve();
let samples = [];
let failures = 0;

function get() {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode));
    });
    request.setTimeout(10_000, () => request.destroy(new Error('timeout')));
    request.on('error', reject);
  });
}

async function run() {
  while (running) {
    const start = performance.now();
    try {
      if ((await get()) !== 200) failures++;
    } catch {
      failures++;
    }
    const took = performance.now() - start;
    samples.push(took);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 50 - took)));
  }
}

parentPort.on('message', async (message) => {
  if (message === 'start') {
    samples = [];
    failures = 0;
    running = true;
    loop = run();
  } else if (message === 'stop') {
    running = false;
    await loop;
    parentPort.postMessage({ samples, failures });
  }
});
