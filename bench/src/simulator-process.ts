import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { WORKSPACE_ROOT, freePort } from '@smsgw/kit/testing';

const SCRIPT = join(WORKSPACE_ROOT, 'packages/smsc/dist/simulator-main.js');

export interface SimulatorProcess {
  /** The SMPP port; it stays the same across restarts, so the dispatcher reconnects to it. */
  port: number;
  pid(): number | undefined;
  /** Whether it sends receipts now. */
  receipts(): boolean;
  /** Stops the simulator and starts it again with receipts on or off. */
  restart(receipts: boolean): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The SMPP simulator as its own process (packages/smsc simulator-main), so its CPU is measured
 * apart from the load generator's. Receipts, when on, come after BENCH_RECEIPT_DELAY_MS (`50-500`:
 * each drawn in the range), as a real SMSC's come at different times.
 */
export async function startSimulatorProcess(receipts: boolean): Promise<SimulatorProcess> {
  const port = await freePort();
  const httpPort = await freePort();
  let child: ChildProcess | undefined;
  let current = receipts;
  const start = async (withReceipts: boolean) => {
    current = withReceipts;
    let output = '';
    child = spawn(process.execPath, [SCRIPT], {
      cwd: WORKSPACE_ROOT,
      env: {
        PATH: process.env['PATH'] ?? '',
        LOG_LEVEL: 'warn',
        SIM_HOST: '127.0.0.1',
        SIM_PORT: String(port),
        SIM_HTTP_PORT: String(httpPort),
        SIM_DELIVERY_RECEIPTS: String(withReceipts),
        SIM_RECEIPT_DELAY_MS: process.env['BENCH_RECEIPT_DELAY_MS'] ?? '50-500',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-10_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
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
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  await start(receipts);
  return {
    port,
    pid: () => child?.pid,
    receipts: () => current,
    async restart(withReceipts) {
      await stop();
      await start(withReceipts);
    },
    stop,
  };
}
