import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { WORKSPACE_ROOT, freePort } from '@smsgw/kit/testing';

const SCRIPT = join(WORKSPACE_ROOT, 'packages/smsc/dist/simulator-main.js');

export interface SimulatorProcess {
  port: number;
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * The SMPP simulator as its own process (packages/smsc simulator-main), so its CPU is measured
 * apart from the load generator's. Receipts, when on, come after BENCH_RECEIPT_DELAY_MS (`50-500`:
 * each drawn in the range), as a real SMSC's come at different times. One simulator serves one
 * cluster for its whole life: a restarted simulator would give out its message ids again.
 */
export async function startSimulatorProcess(receipts: boolean): Promise<SimulatorProcess> {
  const port = await freePort();
  const httpPort = await freePort();
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [SCRIPT], {
    cwd: WORKSPACE_ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      LOG_LEVEL: 'warn',
      SIM_HOST: '127.0.0.1',
      SIM_PORT: String(port),
      SIM_HTTP_PORT: String(httpPort),
      SIM_DELIVERY_RECEIPTS: String(receipts),
      SIM_RECEIPT_DELAY_MS: process.env['BENCH_RECEIPT_DELAY_MS'] ?? '50-500',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-10_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const ready = async () => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`simulator exited:\n${output}`);
      try {
        const reply = await fetch(`http://127.0.0.1:${httpPort}/healthz`);
        if (reply.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`simulator not ready in 20 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await ready();
  } catch (err) {
    await stop();
    throw err;
  }
  return { port, pid: child.pid, stop };
}
