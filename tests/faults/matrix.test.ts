import { appendFileSync } from 'node:fs';
import { PrivatePostgres, PrivateRabbit, PrivateRedis } from './support/infra';
import { runFault, type RunResult } from './support/fault-run';
import { FAULTS } from './support/faults';

/**
 * The fault matrix (docs/reliability.md § The fault matrix): one fault per run (or two in turn, the
 * compound rows), each against a batch with callbacks and a stream of single sends with delivery
 * reports. `pnpm test:faults` runs
 * it; FAULTS_QUICK=1 makes it smaller, FAULTS_BATCH_SIZE sets the batch, FAULTS_ONLY=a,b picks rows
 * (a row's whole name picks that row only, a part of names every row that has it),
 * FAULTS_REPORT=<file> appends each row's figures as a JSON line. Without FAULTS=1 (`npm test` with
 * the servers' URLs set, as in CI) it runs CI_ROWS in quick mode: what fits the suite's time.
 */
const WHOLE = process.env['FAULTS'] === '1';
const CI_ROWS = [
  'none',
  'kill dispatcher',
  'restart postgres',
  'smsc drops the session',
  // The reported compound case; under a minute in quick mode.
  'kill dispatcher, postgres down while it starts',
];
const QUICK = !WHOLE || process.env['FAULTS_QUICK'] === '1';
const BATCH_SIZE = Number(process.env['FAULTS_BATCH_SIZE'] ?? (QUICK ? 2_000 : 20_000));
const SETTLE_MS = Number(process.env['FAULTS_SETTLE_MS'] ?? (QUICK ? 120_000 : 300_000));
const only = (process.env['FAULTS_ONLY'] ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const picks = (name: string, o: string) =>
  FAULTS.some((f) => f.name === o) ? name === o : name.includes(o);
const chosen = only.length ? FAULTS.filter((f) => only.some((o) => picks(f.name, o))) : FAULTS;
const rows = WHOLE ? chosen : chosen.filter((f) => CI_ROWS.includes(f.name));

describe(`fault matrix (batch of ${BATCH_SIZE})`, () => {
  let infra: { postgres: PrivatePostgres; redis: PrivateRedis; rabbit: PrivateRabbit } | undefined;
  const results: RunResult[] = [];

  beforeAll(async () => {
    const started = await Promise.allSettled([
      PrivatePostgres.start(),
      PrivateRedis.start(),
      PrivateRabbit.start(),
    ] as const);
    const [postgres, redis, rabbit] = started;
    if (
      postgres.status === 'fulfilled' &&
      redis.status === 'fulfilled' &&
      rabbit.status === 'fulfilled'
    )
      infra = { postgres: postgres.value, redis: redis.value, rabbit: rabbit.value };
    else {
      // Whatever did start is stopped again before failing.
      for (const server of started) if (server.status === 'fulfilled') await server.value.stop();
      throw started.find((s) => s.status === 'rejected')!.reason;
    }
  }, 180_000);

  afterAll(async () => {
    if (results.length) console.table(results.map(({ errorLogLines: _e, ...r }) => r));
    await infra?.rabbit.stop().catch(() => undefined);
    await infra?.redis.stop();
    await infra?.postgres.stop();
  }, 120_000);

  it.each(rows.map((f) => [f.name, f] as const))(
    '%s: nothing lost, nothing sent twice, money exact, callbacks once',
    async (_name, fault) => {
      const result = await runFault(infra!, fault, {
        batchSize: BATCH_SIZE,
        quick: QUICK,
        settleMs: SETTLE_MS,
      });
      results.push(result);
      const report = process.env['FAULTS_REPORT'];
      if (report) appendFileSync(report, `${JSON.stringify(result)}\n`);
      expect({
        settled: result.settled,
        batchState: result.batchState,
        lost: result.lost,
        stranded: result.stranded,
        duplicated: result.duplicated,
        refundedAndSent: result.refundedAndSent,
        chargedNotSent: result.chargedNotSent,
        moneyDifference: result.moneyDifference,
        ledgerMismatch: result.ledgerMismatch,
        callbacksDuplicated: result.callbacksDuplicated,
        callbacksMissing: result.callbacksMissing,
      }).toEqual({
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
      });
    },
    SETTLE_MS + 600_000,
  );
});
