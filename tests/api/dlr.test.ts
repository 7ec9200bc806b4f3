import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator, type SmppSimulatorOptions } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';
import { CallbackReceiver, type ReceivedCall } from '../support/receiver';

/**
 * Delivery reports end to end: embedded gateway, a real SMPP session to the simulator, and the
 * callbacks as a customer's server receives them. Every scenario runs the whole table of
 * dlr-level × dlr-method, because the ways receipts get lost (ids written differently, a receipt
 * that beats its submit_sm_resp) are different code paths for each level.
 */

const auth = basic('dora', 'dora-password');
let receiver: CallbackReceiver;

beforeAll(async () => {
  receiver = new CallbackReceiver();
  await receiver.start();
});
afterAll(async () => {
  await receiver?.stop();
});

/**
 * A report's own parameters: the query for GET, the form for POST (the URL's own query stays in the
 * URL).
 */
function reportParams(call: ReceivedCall): Record<string, string> {
  if (call.method === 'POST') return Object.fromEntries(new URLSearchParams(call.body));
  const { tag: _tag, ...params } = call.query;
  return params;
}
const reportsFor = (id: string) => receiver.calls.filter((c) => reportParams(c)['id'] === id);
const byLevel = (calls: ReceivedCall[]) =>
  [...calls].sort((a, b) => Number(reportParams(a)['level']) - Number(reportParams(b)['level']));

interface Gateway {
  sim: SmppSimulator;
  gw: RunningGateway;
}

/** A simulator with these options and an embedded gateway bound to it, for one describe block. */
function useGateway(options: SmppSimulatorOptions): Gateway {
  const run = {} as Gateway;
  beforeAll(async () => {
    run.sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: true, ...options });
    const { port } = await run.sim.start();
    run.gw = await startEmbedded({
      SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`,
      CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
      CALLBACK_RETRY_BASE_MS: '100',
    });
    const created = await request(run.gw.base, 'POST', '/admin/v1/accounts', {
      auth: `Bearer ${ADMIN_TOKEN}`,
      json: { username: 'dora', password: 'dora-password', balance: null },
    });
    expect(created.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await run.gw?.stop();
    await run.sim?.stop();
  });
  return run;
}

async function send(run: Gateway, body: Record<string, unknown>): Promise<string> {
  const reply = await request(run.gw.base, 'POST', '/secure/send', { auth, json: body });
  expect(reply.status).toBe(200);
  return reply.body.data.slice('Success "'.length);
}

const status = async (run: Gateway, id: string) =>
  (await request(run.gw.base, 'GET', `/secure/messages/${id}`, { auth })).body.data;

async function finalState(
  run: Gateway,
  id: string,
): Promise<{ state: string; smscId: string; segments: number }> {
  return waitFor(
    async () => {
      const s = await status(run, id);
      return ['delivered', 'undelivered', 'expired', 'rejected', 'failed'].includes(s?.state)
        ? s
        : undefined;
    },
    15_000,
    `message ${id} to reach a final state`,
  );
}

/**
 * Proves that no further report is on its way for messages already final, without sleeping: a
 * level-3 message sent now goes through the same SMSC session, matcher, bus and notifier after
 * theirs, so once both of its reports arrived, every event of the earlier messages (already final,
 * so already published) has been handled, and any report it caused has been sent.
 */
async function fence(run: Gateway, to: string): Promise<void> {
  const id = await send(run, {
    to,
    content: 'fence',
    dlr: 'yes',
    'dlr-url': `${receiver.base}/fence`,
    'dlr-level': 3,
  });
  await waitFor(() => reportsFor(id).length >= 2, 15_000, 'both reports of the fence message');
  expect(reportsFor(id)).toHaveLength(2);
}

type Level = 1 | 2 | 3;
type Method = 'GET' | 'POST';
const TABLE: { level: Level; method: Method }[] = ([1, 2, 3] as const).flatMap((level) =>
  (['GET', 'POST'] as const).map((method) => ({ level, method })),
);

/**
 * Exactly the reference's parameters (docs/architecture.md § Wire compatibility), level 1 first.
 */
function expectedReports(
  level: Level,
  id: string,
  smscId: string,
  text: string,
): Record<string, unknown>[] {
  const one = { id, level: '1', message_status: 'ESME_ROK', connector: 'default' };
  const two = {
    id,
    id_smsc: smscId,
    message_status: 'DELIVRD',
    level: '2',
    connector: 'default',
    sub: '001',
    dlvrd: '001',
    subdate: expect.stringMatching(/^\d{10}$/),
    donedate: expect.stringMatching(/^\d{10}$/),
    err: '000',
    text,
  };
  return level === 1 ? [one] : level === 2 ? [two] : [one, two];
}

const scenarios: { name: string; prefix: string; options: SmppSimulatorOptions }[] = [
  {
    name: 'ids in hex in submit_sm_resp and in decimal in receipts',
    prefix: '417901',
    options: { receiptDelayMs: 20 },
  },
  {
    name: 'the receipt before the submit response',
    prefix: '417902',
    options: { receiptBeforeResponse: true, latencyMs: 50 },
  },
  {
    name: 'ids in decimal with leading zeros in submit_sm_resp and in lower-case hex in receipts',
    prefix: '417903',
    options: {
      receiptDelayMs: 20,
      idFormat: { response: 'decimal', receipt: 'hex', upperCase: false, leadingZeros: 2 },
    },
  },
];

describe.each(scenarios)('delivery reports with $name', ({ prefix, options }) => {
  const run = useGateway({
    ...options,
    receiptStat: (to) => (to.endsWith('9') ? 'UNDELIV' : 'DELIVRD'),
  });
  const sent = new Map<string, { id: string; to: string; text: string; smscId: string }>();
  const key = (level: Level, method: Method) => `${level}${method}`;
  const others = {
    long: `${prefix}80004`,
    undelivered: `${prefix}80009`,
    implied: `${prefix}80005`,
    quiet: `${prefix}80006`,
  };
  const ids = {} as Record<keyof typeof others, string>;

  beforeAll(async () => {
    const table = TABLE.map(async ({ level, method }, i) => {
      const to = `${prefix}${level}${i}001`;
      const text = `level ${level} by ${method}`;
      const id = await send(run, {
        to,
        content: text,
        dlr: 'yes',
        'dlr-url': `${receiver.base}/dlr?tag=${key(level, method)}`,
        'dlr-level': level,
        'dlr-method': method,
      });
      const final = await finalState(run, id);
      sent.set(key(level, method), { id, to, text, smscId: final.smscId });
    });
    const more = [
      send(run, {
        to: others.long,
        content: 'x'.repeat(400),
        dlr: 'yes',
        'dlr-url': `${receiver.base}/dlr`,
        'dlr-level': 2,
      }).then((id) => (ids.long = id)),
      send(run, {
        to: others.undelivered,
        content: 'nope',
        dlr: 'yes',
        'dlr-url': `${receiver.base}/dlr`,
        'dlr-level': 2,
      }).then((id) => (ids.undelivered = id)),
      // Jasmin's send.py: "if b'dlr-url' in updated_request.args or b'dlr-level' in
      // updated_request.args: updated_request.args[b'dlr'] = [b'yes']", and "If DLR is requested
      // and no dlr-method were provided, assume default (POST)".
      send(run, {
        to: others.implied,
        content: 'implied',
        'dlr-url': `${receiver.base}/dlr`,
        'dlr-level': 3,
      }).then((id) => (ids.implied = id)),
      // dlr yes without a URL is accepted (Jasmin: "dlr_url = None"): there is nobody to report to.
      send(run, { to: others.quiet, content: 'quiet', dlr: 'yes', 'dlr-level': 2 }).then(
        (id) => (ids.quiet = id),
      ),
    ];
    await Promise.all([...table, ...more]);
    await Promise.all(Object.values(ids).map((id) => finalState(run, id)));
    await waitFor(
      () =>
        TABLE.every(
          ({ level, method }) =>
            reportsFor(sent.get(key(level, method))!.id).length >= (level === 3 ? 2 : 1),
        ),
      15_000,
      'every expected report',
    );
    await fence(run, `${prefix}90001`);
  }, 60_000);

  it.each(TABLE)(
    'dlr-level $level by $method: exactly the listed reports with the full parameter sets',
    ({ level, method }) => {
      const { id, text, smscId } = sent.get(key(level, method))!;
      const reports = byLevel(reportsFor(id));
      expect(reports.map(reportParams)).toEqual(expectedReports(level, id, smscId, text));
      for (const report of reports) {
        expect(report.method).toBe(method);
        expect(report.path).toBe('/dlr');
        // The URL's own query is kept either way; POST sends the report as a form, nothing in the
        // query.
        expect(report.query).toEqual(
          method === 'GET'
            ? { tag: key(level, method), ...reportParams(report) }
            : { tag: key(level, method) },
        );
        if (method === 'POST')
          expect(report.contentType).toMatch(/^application\/x-www-form-urlencoded/);
      }
    },
  );

  it.each(TABLE)(
    'dlr-level $level by $method: the message is delivered and matched to the SMSC id of its answer',
    async ({ level, method }) => {
      const { id, to, smscId } = sent.get(key(level, method))!;
      expect(await status(run, id)).toMatchObject({ state: 'delivered', smscId });
      const submitted = run.sim.received.filter((r) => r.to === to);
      expect(submitted.map((r) => r.smscId)).toEqual([smscId]);
      const receipts = run.sim.receipts.filter((r) => r.to === to);
      expect(receipts.map((r) => r.smscId)).toEqual([smscId]);
      // The trap was really there: the SMSC wrote the id differently in its answer and in its
      // receipt.
      expect(receipts[0].receiptId).not.toBe(submitted[0].messageId);
    },
  );

  // Reports over the notifier's per-host concurrency are given back and sent at its next pass, so
  // they may come after the fence: each is waited for, then counted.
  const reported = (id: string) =>
    waitFor(() => (reportsFor(id).length > 0 ? true : undefined), 15_000, `a report of ${id}`);

  it('a long message reports DELIVRD once, after a receipt for every part', async () => {
    await reported(ids.long);
    expect(await status(run, ids.long)).toMatchObject({ state: 'delivered', segments: 3 });
    expect(run.sim.received.filter((r) => r.to === others.long)).toHaveLength(3);
    expect(run.sim.receipts.filter((r) => r.to === others.long)).toHaveLength(3);
    // Sent by POST, Jasmin's default method: the parameters are in the form.
    const params = reportsFor(ids.long).map(reportParams);
    expect(params.map((p) => [p['level'], p['message_status']])).toEqual([['2', 'DELIVRD']]);
  });

  it('an undelivered message reports UNDELIV once and ends undelivered', async () => {
    await reported(ids.undelivered);
    expect(await status(run, ids.undelivered)).toMatchObject({ state: 'undelivered' });
    expect(
      reportsFor(ids.undelivered)
        .map(reportParams)
        .map((p) => [p['level'], p['message_status'], p['err']]),
    ).toEqual([['2', 'UNDELIV', '001']]);
  });

  it('dlr-url and dlr-level without dlr yes ask for reports, by POST by default', async () => {
    await waitFor(() => reportsFor(ids.implied).length >= 2, 15_000, 'both implied reports');
    expect(await status(run, ids.implied)).toMatchObject({ state: 'delivered' });
    const reports = byLevel(reportsFor(ids.implied));
    expect(reports.map((c) => [c.method, reportParams(c)['level']])).toEqual([
      ['POST', '1'],
      ['POST', '2'],
    ]);
  });

  it('no report without a dlr-url, even with dlr yes', async () => {
    expect(await status(run, ids.quiet)).toMatchObject({ state: 'delivered' });
    expect(reportsFor(ids.quiet)).toEqual([]);
  });
});
