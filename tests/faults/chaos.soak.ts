import { appendFileSync } from 'node:fs';
import { request } from '../support/http';
import { account, settle } from './support/accounting';
import { ChaosTraffic } from './support/chaos-traffic';
import { FAULTS } from './support/faults';
import { ADMIN_TOKEN, startRun } from './support/run-cluster';
import { ProxiedServer } from './support/proxied-server';

/**
 * The chaos soak (docs/reliability.md § The chaos soak), run by `pnpm soak --chaos [--minutes N]`
 * (bench/src/soak.ts starts this file under jest): mixed traffic for CHAOS_MINUTES with a fault
 * drawn from the matrix's rows every 60–120 s, the machine's Postgres, RabbitMQ and Redis reached
 * through proxies the faults cut, then the matrix's accounting and the inbound messages'. It fails
 * on any violation. CHAOS_REPORT=<file> appends its figures as a JSON line.
 */
const MINUTES = Number(process.env['CHAOS_MINUTES'] ?? 30);
const SETTLE_MS = 600_000;
/** Rows that inject no fault, or one the soak's traffic already has (a flaky receiver). */
const POOL = FAULTS.filter((f) => f.name !== 'none' && f.name !== 'webhook down');
const START_BALANCE = '1000000.000000';
const RATE = '0.013700';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`chaos soak (${MINUTES} minutes)`, () => {
  it(
    'ends with every message final or accounted for by rule, nothing sent twice, money exact, callbacks once by id',
    async () => {
      const started = Date.now();
      const real = {
        postgres: process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres',
        rabbit: process.env['AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672',
        redis: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
      };
      const postgres = await ProxiedServer.start(real.postgres);
      const rabbit = await ProxiedServer.start(real.rabbit);
      const redis = await ProxiedServer.start(real.redis);
      const realPostgres = new URL(real.postgres);
      const run = await startRun(
        { postgres, rabbit, redis },
        {
          quick: false,
          balance: START_BALANCE,
          rate: RATE,
          receiverFailureRate: 0.1,
          directDatabaseUrl: (url) => {
            const direct = new URL(url);
            direct.host = realPostgres.host;
            return direct.toString();
          },
        },
      );
      const faults: { atSecond: number; fault: string; seconds: number; error?: string }[] = [];
      try {
        const route = await request(run.authUrl(), 'PUT', '/admin/v1/mo-routes/chaos', {
          auth: `Bearer ${ADMIN_TOKEN}`,
          json: {
            position: 1,
            to: '5000',
            account: run.username,
            webhook_url: `${run.context.receiver.base}/mo`,
          },
        });
        if (route.status !== 200) throw new Error(`mo route: HTTP ${route.status} ${route.text}`);
        const traffic = new ChaosTraffic(run, { batchSize: 500, batchEveryMs: 45_000 });
        traffic.start();
        const end = started + MINUTES * 60_000;
        for (;;) {
          const wait = 60_000 + Math.random() * 60_000;
          if (Date.now() + wait > end) break;
          await sleep(wait);
          const fault = POOL[Math.floor(Math.random() * POOL.length)];
          const at = Date.now();
          const record: (typeof faults)[number] = {
            atSecond: Math.round((at - started) / 1000),
            fault: fault.name,
            seconds: 0,
          };
          process.stderr.write(`chaos: ${record.atSecond} s: ${fault.name}\n`);
          try {
            await fault.inject(run.context);
          } catch (err) {
            // A fault whose end fails (a service that did not come back) is a violation.
            record.error = err instanceof Error ? err.message.slice(0, 500) : String(err);
          }
          record.seconds = Math.round((Date.now() - at) / 1000);
          faults.push(record);
        }
        await sleep(Math.max(0, end - Date.now()));
        await traffic.stop(120_000);
        const settled = await settle(run.db, SETTLE_MS);
        const figures = await account(run.db, run.context.sim, run.context.receiver, {
          username: run.username,
          rate: RATE,
        });
        const inbound = await traffic.inbound(run.db);
        run.keepLogs('chaos-soak');
        const report = {
          soak: 'chaos',
          minutes: MINUTES,
          seconds: Math.round((Date.now() - started) / 1000),
          faults,
          singlesAnswered: traffic.singlesAnswered,
          batches: traffic.batches,
          batchRecipients: traffic.batchRecipients,
          settled,
          ...figures,
          inbound,
          callbacksAtReceiver: run.context.receiver.calls.length,
          receiverFailures: run.context.receiver.calls.filter((c) => c.status !== 200).length,
          errorLogLines: run.errorLogLines(),
        };
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        const file = process.env['CHAOS_REPORT'];
        if (file) appendFileSync(file, `${JSON.stringify(report)}\n`);
        expect({
          faultsFailed: faults.filter((f) => f.error),
          settled,
          batchState: figures.batchState,
          lost: figures.lost,
          stranded: figures.stranded,
          duplicated: figures.duplicated,
          refundedAndSent: figures.refundedAndSent,
          chargedNotSent: figures.chargedNotSent,
          moneyDifference: figures.moneyDifference,
          ledgerMismatch: figures.ledgerMismatch,
          callbacksDuplicated: figures.callbacksDuplicated,
          callbacksMissing: figures.callbacksMissing,
          inboundLost: inbound.lost,
          inboundRecordedTwice: inbound.recordedTwice,
          inboundWebhooksDuplicated: inbound.webhooksDuplicated,
          inboundWebhooksMissing: inbound.webhooksMissing,
        }).toEqual({
          faultsFailed: [],
          settled: true,
          batchState: 'completed',
          lost: 0,
          stranded: {},
          duplicated: 0,
          refundedAndSent: 0,
          chargedNotSent: 0,
          moneyDifference: '0.000000',
          ledgerMismatch: '0.000000',
          callbacksDuplicated: 0,
          callbacksMissing: 0,
          inboundLost: 0,
          inboundRecordedTwice: 0,
          inboundWebhooksDuplicated: 0,
          inboundWebhooksMissing: 0,
        });
      } finally {
        await run.stop();
        for (const proxy of [postgres, rabbit, redis]) await proxy.down();
      }
    },
    (MINUTES + 30) * 60_000,
  );
});
