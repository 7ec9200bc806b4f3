import autocannon from 'autocannon';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '@smsgw/kit/testing';
import { figure } from './figure-table';
import { report } from './report';

const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const FLOOD_SECONDS = Number(process.env['FLOOD_SECONDS'] ?? 60);
const FLOOD_CONNECTIONS = 60;

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** One GET from the given local address (the customer is not at the attacker's address). */
function timedGet(
  url: string,
  authorization: string,
  localAddress: string,
): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = httpRequest(url, { headers: { authorization }, localAddress }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }),
      );
    });
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end();
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

/**
 * Embedded mode as a new user starts it, under a flood of wrong Basic passwords from one address
 * while a valid customer (another address, never seen before) starts sending: how the flood is
 * answered, and how long the customer's first request and the following ones take.
 */
export async function benchCredentials(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'smsgw-bench-credentials-'));
  const gw = await startService('standalone', {
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    LOG_LEVEL: 'warn',
  });
  try {
    for (const username of ['victim', 'customer']) {
      const created = await fetch(`${gw.url}/admin/v1/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ username, password: `${username}-password`, balance: null }),
      });
      if (created.status !== 201) throw new Error(`account ${username}: HTTP ${created.status}`);
    }
    const statuses: Record<string, number> = {};
    const instance = autocannon(
      {
        url: `${gw.url}/secure/balance`,
        method: 'GET',
        headers: { authorization: basic('victim', 'not-the-password') },
        connections: FLOOD_CONNECTIONS,
        duration: FLOOD_SECONDS,
      },
      () => undefined,
    );
    const floodDone = new Promise<autocannon.Result>((resolve) => instance.on('done', resolve));
    instance.on('response', (_client, status) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
    });
    await new Promise((r) => setTimeout(r, 3000));
    const customer = basic('customer', 'customer-password');
    const latencies: number[] = [];
    const customerStatuses: Record<string, number> = {};
    const until = Date.now() + (FLOOD_SECONDS - 6) * 1000;
    while (Date.now() < until) {
      const reply = await timedGet(`${gw.url}/secure/balance`, customer, '127.0.0.2');
      latencies.push(reply.ms);
      customerStatuses[reply.status] = (customerStatuses[reply.status] ?? 0) + 1;
    }
    const floodResult = await floodDone;
    const sorted = [...latencies].sort((a, b) => a - b);
    report(
      {
        bench: 'credentials',
        floodSeconds: FLOOD_SECONDS,
        floodConnections: FLOOD_CONNECTIONS,
        flood: { statuses, errors: floodResult.errors, timeouts: floodResult.timeouts },
        customer: {
          requests: latencies.length,
          statuses: customerStatuses,
          firstMs: Math.round(latencies[0] ?? 0),
          p50Ms: Math.round(percentile(sorted, 50) * 10) / 10,
          p99Ms: Math.round(percentile(sorted, 99) * 10) / 10,
        },
      },
      [
        {
          columns: [
            'wrong passwords answered',
            "customer's first request, ms",
            'customer p50 / p99 ms',
            'customer errors',
          ],
          rows: [
            [
              Object.entries(statuses)
                .map(([status, n]) => `${figure(n)} × ${status}`)
                .join(', '),
              Math.round(latencies[0] ?? 0),
              `${Math.round(percentile(sorted, 50) * 10) / 10} / ${Math.round(percentile(sorted, 99) * 10) / 10}`,
              latencies.length - (customerStatuses['200'] ?? 0),
            ],
          ],
        },
      ],
    );
  } finally {
    await gw.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
