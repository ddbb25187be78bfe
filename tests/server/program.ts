import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

/**
 * The real program (server/main.ts through tsx, as npm start runs it) in a child process on the
 * embedded database in `dataDir`, for the tests of its run contract.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Program {
  child: ChildProcess;
  output: () => string;
  baseUrl: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function spawnProgram(dataDir: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Program> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extraEnv };
  for (const name of ['DATABASE_URL', 'ADMIN_PASSWORD', 'SIGNING_KEY', 'PUBLIC_URL', 'ADMIN_EMAIL']) if (!(name in extraEnv)) delete env[name];
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, baseUrl: `http://localhost:${port}`, exited };
}

/** Spawns the program and waits until it listens (main.ts prints "IAM Console: <url>"). */
export async function startProgram(dataDir: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Program> {
  const program = await spawnProgram(dataDir, extraEnv);
  const deadline = Date.now() + 90_000;
  while (!program.output().includes('IAM Console:')) {
    if (program.child.exitCode !== null) throw new Error(`server exited with ${program.child.exitCode}:\n${program.output()}`);
    if (Date.now() > deadline) {
      program.child.kill('SIGKILL');
      throw new Error(`server did not start within 90 s:\n${program.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return program;
}

export async function stopProgram(program: Program, signal: NodeJS.Signals = 'SIGTERM') {
  if (program.child.exitCode !== null || program.child.signalCode !== null) return program.exited;
  program.child.kill(signal);
  const timer = setTimeout(() => program.child.kill('SIGKILL'), 45_000);
  const result = await program.exited;
  clearTimeout(timer);
  return result;
}
