import { SERVICE_NAMES, type ServiceName } from '../../support/processes';
import type { Fault, Infra, RunContext } from './fault-run';

/**
 * The faults of the matrix's rows; the chaos soak draws from them too. Each acts through the
 * RunContext, so it acts the same on the matrix's private servers and on the soak's proxies.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long the second fault of a compound row lasts. */
const OUTAGE_MS = 10_000;
const DEPENDENCIES: Record<string, (infra: Infra) => Infra['postgres']> = {
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

export const FAULTS: Fault[] = [
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
