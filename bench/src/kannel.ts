import { compareSearchIndexes } from './search-indexes';
import { PgDb } from '@smsgw/kit';
import { createTestDatabase } from '@smsgw/kit/testing';
import { resetAutovacuum, withAutovacuum } from './autovacuum';
import { LOAD_GENERATOR, SIMULATOR, gatewaySide, startDeployment } from './gateway-sides';
import type { Deployment } from './gateway-sides';
import { SINK_CALLBACK_ENV, reportedAtSink, startCallbackSink } from './callback-sink';
import { CONNECTIONS } from './http-load';
import { ensureKannelInstalled, startKannel, type KannelBoxes } from './kannel-boxes';
import { embeddedSide } from './kannel-embedded';
import { pricedAccount } from './price-list-account';
import { KANNEL_DLR_TABLE, KANNEL_WINDOW, type KannelDlrStorage } from './kannel-config';
import {
  KANNEL_DLR_MASK,
  sendsmsLoad,
  sendsmsRequest,
  startDlrSink,
  waitForFinals,
  type DlrSink,
} from './kannel-sink';
import { sharedServers } from './process-usage';
import { report } from './report';
import { ratiosTable, sidesTable } from './side-figures';
import { measureBatch } from './batch';
import { ratio, runSendRounds, type Side } from './send-rounds';
import { startSimulatorProcess, type SimulatorProcess } from './simulator-process';

/** Kannel's queue drains at its delivered rate after the load stops: the wait is long. */
const DRAIN_TIMEOUT_MS = 900_000;
/** BENCH_KANNEL_WARMUP_SECONDS: Kannel's own warm-up. */
const KANNEL_WARM_UP_SECONDS = Number(process.env['BENCH_KANNEL_WARMUP_SECONDS'] ?? 5);

interface KannelSide {
  side: Side;
  stop(): Promise<void>;
}

/**
 * Kannel with one storage of its report records, bound to its own simulator process (receipts on,
 * the same delay as the gateway's), its sendsms driven like /secure/send, a message done when its
 * final report reached the bench's sink. The CPU counted for Kannel is bearerbox's and smsbox's,
 * and with `pgsql` its database's backends and the server's background work, as for the gateway.
 */
async function kannelSide(storage: KannelDlrStorage, sink: DlrSink): Promise<KannelSide> {
  const sim: SimulatorProcess = await startSimulatorProcess(true);
  const stops: (() => Promise<void>)[] = [() => sim.stop()];
  const stop = async () => {
    for (const s of stops.reverse()) await s();
  };
  try {
    let databaseName: string | undefined;
    let boxes: KannelBoxes;
    if (storage === 'pgsql') {
      const database = await createTestDatabase();
      stops.push(() => database.drop());
      const url = new URL(database.url);
      databaseName = url.pathname.slice(1);
      const db = new PgDb({ connectionString: database.url, max: 1 });
      try {
        for (const statement of KANNEL_DLR_TABLE.split(';').filter((s) => s.trim()))
          await db.query(statement);
      } finally {
        await db.close();
      }
      boxes = await startKannel(storage, sim.port, {
        host: url.hostname,
        port: Number(url.port || 5432),
        user: decodeURIComponent(url.username || 'postgres'),
        // Kannel's group wants a password; a trust server ignores it.
        password: decodeURIComponent(url.password || 'unused'),
        name: databaseName,
      });
    } else {
      boxes = await startKannel(storage, sim.port);
    }
    stops.push(() => boxes.stop());
    const servers = sharedServers(databaseName);
    const request = sendsmsRequest(boxes.sendsmsUrl, sink.url);
    return {
      side: {
        name: storage === 'pgsql' ? 'kannelPgsql' : 'kannelInternal',
        url: boxes.sendsmsUrl,
        headers: {},
        grouping: (pid, command) => {
          if (pid === process.pid) return LOAD_GENERATOR;
          if (pid === sim.pid) return SIMULATOR;
          if (pid === boxes.bearerbox.pid) return 'bearerbox';
          if (pid === boxes.smsbox.pid) return 'smsbox';
          // Postgres only: RabbitMQ and Redis are the gateway's, other work for Kannel.
          if (databaseName === undefined) return undefined;
          return servers(pid, command) === 'postgres' ? 'postgres' : undefined;
        },
        // Kannel accepts several times what it delivers, and each segment waits for its backlog:
        // a short warm-up, whatever the gateway's (BENCH_WARMUP_SECONDS: its first minute).
        warmUpSeconds: KANNEL_WARM_UP_SECONDS,
        load: (seconds) => sendsmsLoad(request, seconds),
        tracker: () => {
          const before = sink.finals();
          return (accepted) => waitForFinals(sink, before, accepted, DRAIN_TIMEOUT_MS);
        },
        targetGroups: (group) => group !== LOAD_GENERATOR && group !== SIMULATOR,
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * `pnpm bench kannel`: the anchor of the gateway's figures (docs/performance.md § The Kannel
 * anchor). Kannel 1.4.5's bearerbox and smsbox, with their report records in memory and in
 * Postgres, and the gateway in distributed mode, each bound to its own simulator that answers
 * every message with a receipt; driven at 32 connections (Kannel's GET /cgi-bin/sendsms asking for
 * a report by dlr-mask, our POST /secure/send) in alternating segments of one run, each side's
 * segment counted until what it accepted was delivered and its receipt recorded. Postgres runs
 * with autovacuum on, as in production. Prints the ratios the targets are stated in.
 */
export async function benchKannel(): Promise<void> {
  const installation = ensureKannelInstalled();
  await withAutovacuum(async (autovacuum) => {
    const sink = await startDlrSink();
    // Ours with the receipt delivered to the customer's dlr_url, as Kannel calls its dlr-url.
    const reports = await startCallbackSink();
    const kannel: KannelSide[] = [];
    let ours: Deployment | undefined;
    let bare: Deployment | undefined;
    let embedded: KannelSide | undefined;
    const stopAll = async () => {
      await embedded?.stop();
      await ours?.stop();
      await bare?.stop();
      for (const k of kannel) await k.stop();
      sink.close();
      await reports.close();
    };
    // An interrupted run stops Kannel's boxes and the services it started, and puts autovacuum
    // back, rather than leaving them to the next run.
    const interrupted = () => {
      void stopAll()
        .then(() => (autovacuum.startsWith('on for this run') ? resetAutovacuum() : undefined))
        .finally(() => process.exit(130));
    };
    process.once('SIGINT', interrupted);
    process.once('SIGTERM', interrupted);
    try {
      kannel.push(await kannelSide('internal', sink));
      kannel.push(await kannelSide('pgsql', sink));
      ours = await startDeployment(true, `window=${KANNEL_WINDOW}`, {}, SINK_CALLBACK_ENV);
      if (compareSearchIndexes())
        bare = await startDeployment(true, `window=${KANNEL_WINDOW}`, {}, SINK_CALLBACK_ENV, true);
      // BENCH_KANNEL_EMBEDDED=0 leaves embedded mode out, for a shorter run.
      if (process.env['BENCH_KANNEL_EMBEDDED'] !== '0') embedded = await embeddedSide();
      // Unlimited credit, asked for explicitly: an account is created with none.
      const anchor = {
        authorization: await ours.cluster.createAccount('anchor', { balance: null }),
      };
      // The same sends by an account priced by a list of 100,000 prefixes (docs/billing.md).
      const priced = await pricedAccount(ours.cluster, 'priced');
      const result = await runSendRounds([
        ...kannel.map((k) => k.side),
        { ...gatewaySide(ours), headers: anchor },
        { ...reportedAtSink(gatewaySide(ours, 'receiptsReported'), reports), headers: anchor },
        {
          ...gatewaySide(ours, 'receiptsPriced'),
          headers: { authorization: priced.authorization },
        },
        ...(bare
          ? [
              {
                ...gatewaySide(bare, 'receiptsWithoutSearchIndexes'),
                headers: {
                  authorization: await bare.cluster.createAccount('anchor', { balance: null }),
                },
              },
            ]
          : []),
        ...(embedded ? [embedded.side] : []),
      ]);
      // One batch on the same deployment after the rounds; BENCH_KANNEL_BATCH=0 leaves it out.
      const batchSize = Number(process.env['BENCH_KANNEL_BATCH'] ?? 20_000);
      const batch = batchSize > 0 ? await measureBatch(ours, batchSize) : undefined;
      const bareBatch = batchSize > 0 && bare ? await measureBatch(bare, batchSize) : undefined;
      const bareSide = result.sides['receiptsWithoutSearchIndexes'];
      const { kannelInternal, kannelPgsql, receipts, receiptsReported, receiptsPriced } =
        result.sides;
      const embeddedFigures = result.sides['embedded'];
      const cpu = (s: typeof receipts) => s.targetMicrosPerMessage ?? NaN;
      const ratios = {
        // Targets: at most 0.5, at least 1, under 50 ms, at most 1.2.
        cpuVsKannelInternal: ratio(cpu(receipts), cpu(kannelInternal)),
        rateVsKannelInternal: ratio(receipts.doneRate, kannelInternal.doneRate),
        cpuVsKannelPgsql: ratio(cpu(receipts), cpu(kannelPgsql)),
        rateVsKannelPgsql: ratio(receipts.doneRate, kannelPgsql.doneRate),
        p99Ms: receipts.p99,
        reportedCpuVsKannelInternal: ratio(cpu(receiptsReported), cpu(kannelInternal)),
        reportedRateVsKannelInternal: ratio(receiptsReported.doneRate, kannelInternal.doneRate),
        warmUpCpuVsSteady: ratio(receipts.warmUp.targetMicrosPerMessage ?? NaN, cpu(receipts)),
        // Target: at most 1.03.
        priceListCpu: ratio(cpu(receiptsPriced), cpu(receipts)),
        priceListRate: ratio(receiptsPriced.doneRate, receipts.doneRate),
        // Target: at most 0.25.
        ...(batch && {
          batchCpuVsKannelInternal: ratio(batch.targetMicrosPerMessage, cpu(kannelInternal)),
        }),
        // Target: at most 1.05 each (the search's indexes cost the send path at most 5 %).
        ...(bareSide && {
          searchIndexesCpu: ratio(cpu(receipts), cpu(bareSide)),
          searchIndexesRate: ratio(receipts.doneRate, bareSide.doneRate),
        }),
        ...(batch &&
          bareBatch && {
            searchIndexesBatchCpu: ratio(
              batch.targetMicrosPerMessage,
              bareBatch.targetMicrosPerMessage,
            ),
          }),
        // Target: at least 0.75.
        ...(embeddedFigures && {
          embeddedRateVsKannelInternal: ratio(embeddedFigures.doneRate, kannelInternal.doneRate),
          embeddedCpuVsKannelInternal: ratio(cpu(embeddedFigures), cpu(kannelInternal)),
        }),
      };
      report(
        {
          bench: 'kannel',
          kannel: { version: '1.4.5 (Debian package kannel)', installation },
          connections: CONNECTIONS,
          window: KANNEL_WINDOW,
          dlrMask: KANNEL_DLR_MASK,
          receiptDelayMs: process.env['BENCH_RECEIPT_DELAY_MS'] ?? '50-500',
          autovacuum,
          priceListRows: priced.rows,
          postgresStatistics: ours.analyze,
          ...result,
          ...(batch && { batch: { count: batchSize, ...batch } }),
          ...(bareBatch && { batchWithoutSearchIndexes: { count: batchSize, ...bareBatch } }),
          ratios,
        },
        [
          sidesTable(result.sides, [
            ['kannelInternal', 'Kannel, `dlr-storage = internal`'],
            ['kannelPgsql', 'Kannel, `dlr-storage = pgsql`'],
            ['receipts', 'ours, distributed (`/secure/send`)'],
            ['receiptsReported', 'ours, distributed, report to `dlr_url`'],
            ['receiptsPriced', 'ours, distributed, priced by a list of 100,000 prefixes'],
            ['receiptsWithoutSearchIndexes', 'ours, distributed, without the search indexes'],
            ['embedded', 'ours, embedded (PGlite)'],
          ]),
          ratiosTable(ratios, {
            cpuVsKannelInternal: 'CPU per delivered message, ours / Kannel internal (target ≤ 0.5)',
            rateVsKannelInternal: 'delivered rate, ours / Kannel internal (target ≥ 1)',
            p99Ms: 'p99 of `/secure/send`, worst round, ms (target < 50)',
            reportedCpuVsKannelInternal:
              'CPU per message, ours with its report called at `dlr_url` / Kannel internal',
            reportedRateVsKannelInternal:
              'delivered rate, ours with its report called at `dlr_url` / Kannel internal',
            cpuVsKannelPgsql: 'CPU per message, ours / Kannel pgsql',
            rateVsKannelPgsql: 'delivered rate, ours / Kannel pgsql',
            warmUpCpuVsSteady: 'CPU, warm-up on a fresh database / steady state (target ≤ 1.2)',
            priceListCpu:
              'CPU per message, priced by a list of 100,000 prefixes / by the rate (target ≤ 1.03)',
            priceListRate: 'delivered rate, priced by a list of 100,000 prefixes / by the rate',
            batchCpuVsKannelInternal:
              'CPU per batch message, with its receipt / Kannel internal per message (target ≤ 0.25)',
            embeddedRateVsKannelInternal:
              'embedded delivered rate / Kannel internal (target ≥ 0.75)',
            embeddedCpuVsKannelInternal: 'embedded CPU per message / Kannel internal',
            searchIndexesCpu:
              'CPU per delivered message, with the search indexes / without (target ≤ 1.05)',
            searchIndexesRate: 'delivered rate, with the search indexes / without',
            searchIndexesBatchCpu:
              'CPU per batch message, with the search indexes / without (target ≤ 1.05)',
          }),
        ],
      );
    } finally {
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', interrupted);
      await stopAll();
    }
  });
}
