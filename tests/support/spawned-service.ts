import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_SCRIPTS, WORKSPACE_ROOT, freePort, waitFor } from '@smsgw/kit/testing';

/**
 * A service process started without waiting for it to be ready (startService waits), for tests
 * that start one while a dependency is down and watch it wait.
 */
export interface SpawnedService {
  name: string;
  url: string;
  child: ChildProcess;
  output(): string;
  alive(): boolean;
  /** /readyz's status and checks; status 0 when nothing answers. */
  readiness(): Promise<{ status: number; checks: Record<string, boolean> }>;
  /** Waits until /readyz answers 200; fails at once if the process exits. */
  ready(timeoutMs: number): Promise<void>;
  /** SIGTERM and wait for the exit (bounded, then SIGKILL); resolves with the exit code. */
  stop(): Promise<number | null>;
  kill(): Promise<void>;
}

function exited(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

export async function spawnService(
  name: string,
  env: Record<string, string>,
): Promise<SpawnedService> {
  const script = join(WORKSPACE_ROOT, SERVICE_SCRIPTS[name] ?? name);
  if (!existsSync(script))
    throw new Error(`${script} is missing: run \`pnpm build\` first (pnpm test does)`);
  const port = await freePort();
  const child = spawn(process.execPath, [script], {
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
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const alive = () => child.exitCode === null && child.signalCode === null;
  const readiness = async () => {
    try {
      const reply = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
      const body = (await reply.json()) as { checks?: Record<string, boolean> };
      return { status: reply.status, checks: body.checks ?? {} };
    } catch {
      return { status: 0, checks: {} };
    }
  };
  return {
    name,
    url,
    child,
    output: () => output,
    alive,
    readiness,
    ready: async (timeoutMs) => {
      await waitFor(
        async () => {
          if (!alive()) throw new Error(`${name} exited with ${child.exitCode}:\n${output}`);
          return (await readiness()).status === 200;
        },
        timeoutMs,
        `${name} ready`,
        100,
      );
    },
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
