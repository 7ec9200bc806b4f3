import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '@smsgw/kit/testing';
import { profilingArgs } from './cluster';
import { LOAD_GENERATOR, SIMULATOR } from './gateway-sides';
import { KANNEL_WINDOW } from './kannel-config';
import type { Side } from './send-rounds';
import { startSimulatorProcess } from './simulator-process';

const STANDALONE = 'apps/standalone/dist/main.js';

/**
 * Embedded mode as the Kannel anchor drives it: what `pnpm start` runs (every service in one
 * process, PGlite in a fresh data directory), bound to its own simulator process like Kannel and
 * distributed mode (receipts on, the same delay, the same window), `/secure/send`, a message done
 * when its receipt is recorded.
 */
export async function embeddedSide(): Promise<{ side: Side; stop(): Promise<void> }> {
  const sim = await startSimulatorProcess(true);
  const dataDir = mkdtempSync(join(tmpdir(), 'smsgw-bench-'));
  const adminToken = randomBytes(24).toString('hex');
  const remove = async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await sim.stop();
  };
  let gateway;
  try {
    gateway = await startService(
      STANDALONE,
      {
        SMSC_URL: `smpp://bench:bench@127.0.0.1:${sim.port}?window=${KANNEL_WINDOW}`,
        DATA_DIR: dataDir,
        // Free ports for its SMPP server: other work on the machine may hold the defaults.
        SMPP_SERVER_PORT: '0',
        SMPP_SERVER_TLS_PORT: '0',
        ADMIN_TOKEN: adminToken,
        JWT_SECRET: randomBytes(32).toString('hex'),
        LOG_LEVEL: 'warn',
      },
      120_000,
      profilingArgs(),
    );
  } catch (err) {
    await remove();
    throw err;
  }
  const stop = async () => {
    await gateway.stop();
    await remove();
  };
  const reply = await fetch(`${gateway.url}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    // Unlimited credit, asked for explicitly: an account is created with none.
    body: JSON.stringify({ username: 'embedded', password: 'bench-password', balance: null }),
  });
  if (reply.status !== 201) {
    await stop();
    throw new Error(`embedded account: HTTP ${reply.status}`);
  }
  const pid = gateway.child.pid;
  return {
    side: {
      name: 'embedded',
      url: `${gateway.url}/secure/send`,
      headers: {
        authorization: `Basic ${Buffer.from('embedded:bench-password').toString('base64')}`,
      },
      grouping: (p) =>
        p === process.pid
          ? LOAD_GENERATOR
          : p === sim.pid
            ? SIMULATOR
            : p === pid
              ? 'standalone'
              : undefined,
      done: { metricsUrls: [gateway.url], by: 'receipt' },
      targetGroups: (group) => group === 'standalone',
    },
    stop,
  };
}
