import { createLogger, type Db } from '@smsgw/kit';
import { insertTestAccount, openMigratedPglite, waitFor } from '@smsgw/kit/testing';
import { MessageStore } from '../src/message-store';
import { SendPipeline } from '../src/send-pipeline/send-pipeline';
import type { SubmitJob } from '../src/send-pipeline/submit-job-publisher';

const logger = createLogger('test', 'silent');
let db: Db;
let accountId: string;

beforeAll(async () => {
  db = await openMigratedPglite();
  accountId = await insertTestAccount(db, '0.1');
});
afterAll(() => db.close());
beforeEach(() => db.query('DELETE FROM job_outbox'));

/** A broker whose confirms the test gives (or refuses) by hand. */
class HeldBroker {
  readonly jobs: { job: SubmitJob; confirm: () => void; fail: (err: Error) => void }[] = [];
  publish(job: SubmitJob): Promise<void> {
    return new Promise<void>((confirm, fail) => this.jobs.push({ job, confirm, fail }));
  }
}

function pipeline(broker: HeldBroker, maxUnconfirmedJobs = 1000) {
  return new SendPipeline(new MessageStore(db), broker, logger, {
    maxParts: 10,
    maxUnconfirmedJobs,
    outboxIdleFlushMs: 0,
  });
}

const outboxRows = async () =>
  Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM job_outbox')).rows[0].n);
/** Whether `p` has settled, read at any time. */
const tracked = <T>(p: Promise<T>): { settled: boolean } => {
  const state = { settled: false };
  void p.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
};
/** One turn of the event loop: whatever the microtasks queued before it would settle has. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const DEFAULT_ROUTE = { route: null, connectors: ['default'], price: null };

describe('SendPipeline and the broker confirm', () => {
  it('answers once the message and its outbox row are committed, before the broker confirms; the row goes at the confirm', async () => {
    const broker = new HeldBroker();
    const gateway = pipeline(broker);

    const accepted = await gateway.accept(
      accountId,
      { to: '41790000001', content: 'hi' },
      DEFAULT_ROUTE,
      { entry: 'rest' },
    );

    expect(broker.jobs.map((j) => j.job.messageId)).toEqual([accepted.id]);
    expect(gateway.unconfirmedJobs).toBe(1);
    expect(await outboxRows()).toBe(1);
    broker.jobs[0].confirm();
    await gateway.waitForConfirms();
    await gateway.flushOutboxDeletions();
    expect(gateway.unconfirmedJobs).toBe(0);
    expect(await outboxRows()).toBe(0);
  });

  it('leaves the outbox row for the sweep when the publish fails, and still answers', async () => {
    const broker = new HeldBroker();
    const gateway = pipeline(broker);
    await gateway.accept(accountId, { to: '41790000001', content: 'hi' }, DEFAULT_ROUTE, {
      entry: 'rest',
    });

    broker.jobs[0].fail(new Error('broker gone'));
    await gateway.waitForConfirms();
    await gateway.flushOutboxDeletions();
    expect(await outboxRows()).toBe(1);
  });

  it('makes a request wait for its own confirm once too many jobs wait for the broker', async () => {
    const broker = new HeldBroker();
    const gateway = pipeline(broker, 2);
    await gateway.accept(accountId, { to: '41790000001', content: 'one' }, DEFAULT_ROUTE, {
      entry: 'rest',
    });
    await gateway.accept(accountId, { to: '41790000001', content: 'two' }, DEFAULT_ROUTE, {
      entry: 'rest',
    });

    const third = tracked(
      gateway.accept(accountId, { to: '41790000001', content: 'three' }, DEFAULT_ROUTE, {
        entry: 'rest',
      }),
    );
    // Its job reached the broker: all that remains for the request is to wait for the confirm.
    await waitFor(() => broker.jobs.length === 3, 5_000, 'the third job published');
    await nextTurn();
    expect(third.settled).toBe(false);
    expect(gateway.unconfirmedJobs).toBe(3);
    broker.jobs[2].confirm();
    await waitFor(() => third.settled, 5_000, 'the third request answered');

    const drained = gateway.waitForConfirms();
    const draining = tracked(drained);
    await nextTurn();
    // Two jobs still wait for their confirm.
    expect(gateway.unconfirmedJobs).toBe(2);
    expect(draining.settled).toBe(false);
    for (const j of broker.jobs.slice(0, 2)) j.confirm();
    await drained;
    expect(gateway.unconfirmedJobs).toBe(0);
  });
});
