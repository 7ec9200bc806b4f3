import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The workspace root (this file is packages/kit/{src,dist}/testing). */
export const WORKSPACE_ROOT = join(__dirname, '..', '..', '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Services as real processes, for the distributed tests and the benchmarks: each is started with
 * `node <service>/dist/main.js` and is ready once /readyz answers 200.
 */
export interface ServiceProcess {
  name: string;
  port: number;
  url: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for the exit (bounded); resolves with the exit code. */
  stop(): Promise<number | null>;
  kill(): Promise<void>;
}

/** Each runnable part of the workspace, by name. */
export const SERVICE_SCRIPTS: Record<string, string> = {
  auth: 'services/auth/dist/main.js',
  'api-gateway': 'services/api-gateway/dist/main.js',
  dispatcher: 'services/dispatcher/dist/main.js',
  'batch-scheduler': 'services/batch-scheduler/dist/main.js',
  'callback-notifier': 'services/callback-notifier/dist/main.js',
  'smpp-server': 'services/smpp-server/dist/main.js',
  standalone: 'apps/standalone/dist/main.js',
};

function exited(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/**
 * Starts `node <service>/dist/main.js` as its own process on a free loopback port (or env's PORT),
 * keeping the tail of its output, without waiting for it to be ready.
 */
export async function spawnServiceProcess(
  name: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  keptOutputChars = 20_000,
): Promise<ServiceProcess> {
  const script = join(WORKSPACE_ROOT, SERVICE_SCRIPTS[name] ?? name);
  if (!existsSync(script))
    throw new Error(`${script} is missing: run \`pnpm build\` first (pnpm test does)`);
  const port = env['PORT'] ? Number(env['PORT']) : await freePort();
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd: WORKSPACE_ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      LOG_LEVEL: 'warn',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-keptOutputChars);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    stop: () => {
      child.kill('SIGTERM');
      return exited(child, 15_000);
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited(child, 5_000);
    },
  };
}

/** Starts `node <service>/dist/main.js` as its own process and waits until /readyz answers 200. */
export async function startService(
  name: string,
  env: Record<string, string>,
  readyTimeoutMs = 45_000,
  nodeArgs: string[] = [],
): Promise<ServiceProcess> {
  const service = await spawnServiceProcess(name, env, nodeArgs);
  const { child, url } = service;
  const output = () => service.output();
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`${name} exited with ${child.exitCode}:\n${output()}`);
    try {
      const reply = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
      if (reply.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} not ready within ${readyTimeoutMs} ms:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return service;
}

/** Runs a command to completion (bounded) and returns its exit code and output. */
export function runNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 20_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(WORKSPACE_ROOT, script), ...args], {
      cwd: WORKSPACE_ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
