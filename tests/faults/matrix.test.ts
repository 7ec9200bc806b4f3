import { appendFileSync } from 'node:fs';
import { PrivatePostgres, PrivateRabbit, PrivateRedis, type Dependency } from './support/infra';
import { SERVICE_NAMES, type ServiceName } from '../support/processes';
import {
  runFault,
  type Fault,
  type Infra,
  type RunContext,
  type RunResult,
} from './support/fault-run';

/**
 * The fault matrix (docs/reliability.md § The fault matrix): one fault per run, each against a
 * batch with callbacks and a stream of single sends with delivery reports. `pnpm test:faults` runs
 * it; FAULTS_QUICK=1 makes it smaller, FAULTS_BATCH_SIZE sets the batch, FAULTS_ONLY=a,b picks rows,
 * FAULTS_REPORT=<file> appends each row's figures as a JSON line. Without FAULTS=1 (`npm test` with
 * the servers' URLs set, as in CI) it runs CI_ROWS in quick mode: what fits the suite's time.
 */
const WHOLE = process.env['FAULTS'] === '1';
const CI_ROWS = ['none', 'kill dispatcher', 'restart postgres', 'smsc drops the session'];
const QUICK = !WHOLE || process.env['FAULTS_QUICK'] === '1';
const BATCH_SIZE = Number(process.env['FAULTS_BATCH_SIZE'] ?? (QUICK ? 2_000 : 20_000));
const SETTLE_MS = Number(process.env['FAULTS_SETTLE_MS'] ?? (QUICK ? 120_000 : 300_000));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long the second fault of a compound row lasts. */
const OUTAGE_MS = 10_000;
const DEPENDENCIES: Record<string, (infra: Infra) => Dependency> = {
  postgres: (infra) => infra.postgres,
  rabbitmq: (infra) => infra.rabbit,
  redis: (infra) => infra.redis,
};

/**
 * Starts a killed service again while the second fault lasts, and ends that fault after OUTAGE_MS
 * whatever the start does, so the next row finds its servers up; a start that failed fails the row.
 */
async function relaunchDuring(
  run: RunContext,
  service: ServiceName,
  end: () => Promise<void>,
): Promise<void> {
  const started = run.relaunch(service).then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
  );
  await sleep(OUTAGE_MS);
  await end();
  const failed = await started;
  if (failed) throw failed;
}

/** Two faults in turn: a service SIGKILLed, then a dependency down while it starts again. */
const COMPOUND: Fault[] = SERVICE_NAMES.flatMap((service) =>
  Object.entries(DEPENDENCIES).map(([dependency, of]): Fault => ({
    name: `kill ${service}, ${dependency} down while it starts`,
    inject: async (run) => {
      await run.kill(service);
      const server = of(run.infra);
      await server.down();
      await relaunchDuring(run, service, () => server.up());
    },
  })),
);

const FAULTS: Fault[] = [
  { name: 'none', inject: () => Promise.resolve() },
  ...SERVICE_NAMES.map((service): Fault => ({
    name: `kill ${service}`,
    inject: (run) => run.restart(service, 3000),
  })),
  { name: 'restart rabbitmq', inject: (run) => run.infra.rabbit.restart(5000) },
  { name: 'restart postgres', inject: (run) => run.infra.postgres.restart(10_000) },
  { name: 'restart redis', inject: (run) => run.infra.redis.restart(5000) },
  { name: 'smsc drops the session', inject: (run) => Promise.resolve(run.sim.dropSessions()) },
  {
    name: 'smsc throttles 30%',
    inject: async (run) => {
      run.sim.setThrottleRate(0.3);
      await sleep(run.quick ? 10_000 : 20_000);
      run.sim.setThrottleRate(0);
    },
  },
  {
    name: 'smsc silent 20 s',
    inject: async (run) => {
      run.sim.setSilent(true);
      await sleep(20_000);
      run.sim.setSilent(false);
    },
  },
  {
    name: 'smsc killed 10 s',
    inject: async (run) => {
      await run.smscDown();
      await sleep(OUTAGE_MS);
      await run.smscUp();
    },
  },
  {
    name: 'smsc killed with the dispatcher',
    inject: async (run) => {
      await Promise.all([run.smscDown(), run.kill('dispatcher')]);
      await relaunchDuring(run, 'dispatcher', () => run.smscUp());
    },
  },
  ...COMPOUND,
  {
    name: 'webhook down',
    inject: async (run) => {
      run.receiver.down();
      await sleep(run.quick ? 20_000 : 60_000);
      run.receiver.up();
    },
  },
];

const only = (process.env['FAULTS_ONLY'] ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const chosen = only.length ? FAULTS.filter((f) => only.some((o) => f.name.includes(o))) : FAULTS;
const rows = WHOLE ? chosen : chosen.filter((f) => CI_ROWS.includes(f.name));

describe(`fault matrix (batch of ${BATCH_SIZE})`, () => {
  let infra: Infra | undefined;
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
