/**
 * npm run bench -- --parts signin [-- --signins N]
 * Sign-in click to dashboard, as a person sees it: the real program (`npm start`'s server/main.ts on
 * a fresh embedded database, the built console), headless Chromium through playwright-core. Each
 * run is a fresh browser context (nothing cached): open /login, type the address and password, then
 * the clock runs from the click on Login until the dashboard's network is idle (its last request answered).
 * Prints the median of N runs (15 by default) with its spread, and each phase: the provider's part
 * (the form post and its redirect), the callback, and the dashboard.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
// @ts-expect-error: plain JavaScript of the start script
import { buildConsoleIfNeeded } from '../scripts/lib.mjs';
import { freePort, startProgram, stopProgram } from '../tests/server/program.js';
import { percentile } from './common.js';

const EMAIL = 'admin@example.com';
const PASSWORD = 'a long password for the sign-in benchmark';

export async function signinBench({ runs }: { runs: number }) {
  await buildConsoleIfNeeded();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iam-signin-bench-'));
  const port = await freePort();
  const publicUrl = `http://localhost:${port}`;
  const program = await startProgram(dataDir, { PORT: String(port), PUBLIC_URL: publicUrl, ADMIN_EMAIL: EMAIL, ADMIN_PASSWORD: PASSWORD });
  const browser = await chromium.launch({
    executablePath: process.env.E2E_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const total: number[] = [];
  const provider: number[] = [];
  const toDashboard: number[] = [];
  try {
    // one untimed run first: the server's first sign-in pays for what it makes once
    for (let run = 0; run <= runs; run++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${publicUrl}/login`);
      await page.getByLabel('Email').fill(EMAIL);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      const start = Date.now();
      let callbackAt = 0;
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame() && new URL(frame.url()).pathname === '/callback' && !callbackAt) callbackAt = Date.now();
      });
      await page.getByRole('button', { name: 'Login' }).click();
      await page.waitForURL(/\/dashboard(\?|#|$)/, { timeout: 30_000 });
      const onDashboard = Date.now();
      await page.waitForLoadState('networkidle');
      // networkidle waits 500 ms without requests: that wait is not the person's
      const done = Date.now() - 500;
      if (run > 0) {
        total.push(done - start);
        provider.push(callbackAt - start);
        toDashboard.push(onDashboard - start);
      }
      await context.close();
    }
  } finally {
    await browser.close();
    await stopProgram(program);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const line = (label: string, values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `${label.padEnd(40)} median ${percentile(sorted, 50)} ms, p90 ${percentile(sorted, 90)} ms, min ${sorted[0]} ms, max ${sorted[sorted.length - 1]} ms`;
  };
  console.log(`\n## Sign-in click to dashboard (${runs} runs, Chromium, PGlite, the built console)`);
  console.log(line('click to /callback (the provider)', provider));
  console.log(line('click to /dashboard in the address bar', toDashboard));
  console.log(line('click to dashboard idle (target 600 ms)', total));
}
