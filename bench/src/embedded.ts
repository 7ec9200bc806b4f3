import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '@smsgw/kit/testing';
import { startCeilingServer } from './ceiling-server';
import { profilingArgs } from './cluster';
import { CONNECTIONS } from './http-load';
import { LOAD_GENERATOR } from './gateway-sides';
import { ratio, runSendRounds } from './send-rounds';
import { report } from './report';
import { ratiosTable, sidesTable } from './side-figures';

const STANDALONE = 'apps/standalone/dist/main.js';

/**
 * `pnpm bench embedded`: what `pnpm start` runs (every service in one process, PGlite in a fresh
 * data directory, the built-in simulator sending every receipt), `/secure/send` at 32 connections,
 * a message done when its receipt is recorded; against express answering a constant, in
 * alternating segments of the same run.
 */
export async function benchEmbedded(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'smsgw-bench-'));
  const adminToken = randomBytes(24).toString('hex');
  const ceiling = await startCeilingServer();
  try {
    const gateway = await startService(
      STANDALONE,
      {
        DATA_DIR: dataDir,
        ADMIN_TOKEN: adminToken,
        JWT_SECRET: randomBytes(32).toString('hex'),
        LOG_LEVEL: 'warn',
      },
      120_000,
      profilingArgs(),
    );
    try {
      const reply = await fetch(`${gateway.url}/admin/v1/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'embedded', password: 'bench-password', balance: null }),
      });
      if (reply.status !== 201) throw new Error(`account: HTTP ${reply.status}`);
      const auth = `Basic ${Buffer.from('embedded:bench-password').toString('base64')}`;
      const result = await runSendRounds([
        {
          name: 'ceiling',
          url: ceiling.url,
          headers: {},
          grouping: (pid) => (pid === process.pid ? LOAD_GENERATOR : undefined),
        },
        {
          name: 'embedded',
          url: `${gateway.url}/secure/send`,
          headers: { authorization: auth },
          grouping: (pid) =>
            pid === process.pid
              ? LOAD_GENERATOR
              : pid === gateway.child.pid
                ? 'standalone'
                : undefined,
          done: { metricsUrls: [gateway.url], by: 'receipt' },
          targetGroups: (group) => group === 'standalone',
        },
      ]);
      const { ceiling: base, embedded } = result.sides;
      // What the process logged (warnings and errors) says why it refused requests, if it did.
      if (embedded.non2xx > 0) process.stderr.write(`standalone's log:\n${gateway.output()}\n`);
      report(
        {
          bench: 'embedded',
          connections: CONNECTIONS,
          ...result,
          ratios: { rpsVsCeiling: ratio(embedded.rps, base.rps) },
        },
        [
          sidesTable(result.sides, [
            ['embedded', 'embedded mode'],
            ['ceiling', 'express answering a constant'],
          ]),
          ratiosTable(
            { rpsVsCeiling: ratio(embedded.rps, base.rps) },
            {
              rpsVsCeiling: 'answers/s against express',
            },
          ),
        ],
      );
    } finally {
      await gateway.stop();
    }
  } finally {
    ceiling.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
