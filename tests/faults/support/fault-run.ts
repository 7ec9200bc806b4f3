import { request } from '../../support/http';
import { account, settle, type Accounting } from './accounting';
import { startRun, type Infra, type RunContext } from './run-cluster';

export type { Infra, RunContext } from './run-cluster';

export interface Fault {
  name: string;
  /** Injects the fault and returns once it is over (the system may still be recovering). */
  inject(run: RunContext): Promise<void>;
}

/** What a run measured: the accounting (see Accounting) and the run's own figures. */
export interface RunResult extends Accounting {
  fault: string;
  batchSize: number;
  errorLogLines: Record<string, number>;
  settled: boolean;
  seconds: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const START_BALANCE = '1000000.000000';
/** A rate with fractions of a cent, so a rounding slip shows. */
const RATE = '0.013700';

/**
 * One row of the matrix: a fresh database and bus namespace on the private servers, every
 * service as a process, a batch with callbacks and a stream of single sends with delivery reports,
 * one fault a few seconds in, then the checks.
 */
export async function runFault(
  infra: Infra,
  fault: Fault,
  options: { batchSize: number; quick: boolean; settleMs: number },
): Promise<RunResult> {
  const started = Date.now();
  const run = await startRun(infra, { quick: options.quick, balance: START_BALANCE, rate: RATE });
  const { sim, receiver } = run.context;
  try {
    const recipients = Array.from({ length: options.batchSize }, (_, i) =>
      String(41_700_000_000 + i),
    );
    const batch = await request(run.gateway(), 'POST', '/secure/sendbatch', {
      auth: run.auth,
      json: {
        messages: [{ to: recipients, content: 'fault matrix' }],
        batch_config: {
          callback_url: `${receiver.base}/batch-ok`,
          errback_url: `${receiver.base}/batch-error`,
        },
      },
    });
    if (batch.status !== 200) throw new Error(`sendbatch: HTTP ${batch.status} ${batch.text}`);

    // Single sends keep arriving through the fault; only those answered Success were accepted.
    // One whose answer was lost may or may not have been accepted: the database tells, by number.
    let streaming = true;
    const stream = (async () => {
      const limit = options.quick ? 150 : 400;
      for (let i = 0; streaming && i < limit; i++) {
        await request(run.gateway(), 'POST', '/secure/send', {
          auth: run.auth,
          json: {
            to: String(41_790_000_000 + i),
            content: `single ${i}`,
            dlr: 'yes',
            'dlr-url': `${receiver.base}/dlr`,
            'dlr-level': 3,
          },
        }).catch(() => undefined);
        await sleep(100);
      }
    })();

    await sim.waitFor(Math.floor(options.batchSize / 10), 120_000);
    await fault.inject(run.context);
    await sleep(2000);
    streaming = false;
    await stream;

    const settled = await settle(run.db, options.settleMs);
    const figures = await account(run.db, sim, receiver, { username: run.username, rate: RATE });
    run.keepLogs(fault.name);
    return {
      fault: fault.name,
      batchSize: options.batchSize,
      ...figures,
      errorLogLines: run.errorLogLines(),
      settled,
      seconds: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    await run.stop();
  }
}
