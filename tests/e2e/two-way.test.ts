/**
 * Two-way messaging in distributed mode: inbound messages over a real SMPP session reach the
 * routed account's webhook once with the right text, and a SIGKILL of the dispatcher between
 * receiving and answering loses nothing and records nothing twice.
 */
import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator, type OriginateRequest } from '@smsgw/smsc';
import { E2E_ADMIN_TOKEN, useDistributedRun } from '../support/distributed';
import { request } from '../support/http';
import { CallbackReceiver } from '../support/receiver';

describe('distributed mode: inbound messages', () => {
  const run = useDistributedRun();
  const hooks = new CallbackReceiver();
  let sim: SmppSimulator;
  let port: number;
  let dispatcher: Awaited<ReturnType<typeof run.start>>;
  const dispatcherEnv = () => ({
    SMSC_URL: `smpp://smsgw:secret@127.0.0.1:${port}?window=10`,
    INBOUND_PART_TIMEOUT_MS: '1500',
  });

  beforeAll(async () => {
    await hooks.start();
    sim = new SmppSimulator({ host: '127.0.0.1', port: 0, deliveryReceipts: false });
    run.simulators.push(sim);
    port = (await sim.start()).port;
  });
  afterAll(() => hooks.stop());

  /**
   * Waits until every inbound message is routed and its webhook call answered or given up: the
   * message is then final and its call never made again, so no further call can arrive.
   */
  const webhooksSettled = () =>
    waitFor(
      async () => {
        const { rows } = await run.db.query<{ open: string }>(
          `SELECT (SELECT count(*) FROM inbound_messages WHERE state IN ('received', 'routed'))
                + (SELECT count(*) FROM callback_attempts WHERE kind = 'mo' AND state = 'pending')
                  AS open`,
        );
        return Number(rows[0].open) === 0 ? true : undefined;
      },
      20_000,
      'every inbound message final',
    );
  const texts = (path: string) =>
    hooks.on(path).map((c) => (JSON.parse(c.body) as { text: string }).text);

  it('delivers GSM 03.38, UCS-2 with an emoji, three parts out of order and an incomplete message to the webhook once each', async () => {
    const { auth } = await run.gatewayWithAccount('carol');
    dispatcher = await run.start('dispatcher', dispatcherEnv());
    await run.start('callback-notifier', { CALLBACK_ALLOWED_HOSTS: '127.0.0.1' });
    const route = await request(auth.url, 'PUT', '/admin/v1/mo-routes/carol', {
      auth: `Bearer ${E2E_ADMIN_TOKEN}`,
      json: { position: 1, to: '5000', account: 'carol', webhook_url: `${hooks.base}/carol` },
    });
    expect(route.status).toBe(200);
    await waitFor(
      () => (sim.receivingCount > 0 ? true : undefined),
      15_000,
      'the dispatcher bound',
    );

    const base = { from: '41790000001', to: '5000' };
    const sends: [OriginateRequest, string][] = [
      [{ ...base, text: 'Ja {bitte} [5€] ~|^' }, 'Ja {bitte} [5€] ~|^'],
      [{ ...base, text: 'Oui 😀 merci 你好', dataCoding: 8 }, 'Oui 😀 merci 你好'],
      [
        { ...base, text: 'part one / part two / part three', partBytes: 11, order: [2, 3, 1] },
        'part one / part two / part three',
      ],
      [{ ...base, text: 'aaaaaXXXXXccccc', partBytes: 5, withhold: [2] }, 'aaaaaccccc'],
    ];
    for (const [req] of sends)
      expect(await sim.originate(req)).toEqual(expect.arrayContaining([0]));
    await waitFor(
      () => (hooks.on('/carol').length >= sends.length ? true : undefined),
      20_000,
      'every webhook call',
    );
    await webhooksSettled();
    expect(texts('/carol').sort()).toEqual(sends.map(([, text]) => text).sort());
    const incomplete = hooks
      .on('/carol')
      .map((c) => JSON.parse(c.body) as Record<string, string>)
      .find((b) => b['text'] === 'aaaaaccccc');
    expect(incomplete).toMatchObject({ incomplete: 'true', parts: '2/3' });
  });

  it('loses nothing and records nothing twice when the dispatcher is SIGKILLed between receiving and answering', async () => {
    const count = 60;
    const message = (i: number): OriginateRequest => ({
      from: `4179100${String(i).padStart(4, '0')}`,
      to: '5000',
      text: `reply ${i}`,
    });
    // As an SMSC: each message goes until it gets an answer; unanswered ones (the session broke)
    // are delivered again later.
    const answered = new Set<number>();
    const originateAll = (which: number[]) =>
      which.map((i) =>
        Promise.race([
          sim.originate(message(i)).then((statuses) => {
            if (statuses.every((s) => s === 0)) answered.add(i);
          }),
          new Promise((r) => setTimeout(r, 3000)),
        ]).catch(() => undefined),
      );
    const all = Array.from({ length: count }, (_, i) => i);
    const first = originateAll(all);
    // Killed once the dispatcher is under way: it has answered a first message, the others are
    // still arriving or being recorded.
    await waitFor(() => (answered.size > 0 ? true : undefined), 10_000, 'a first answer', 1);
    await dispatcher.kill();
    await Promise.all(first);
    await waitFor(() => (sim.receivingCount === 0 ? true : undefined), 5_000, 'the session gone');
    await run.start('dispatcher', dispatcherEnv());
    await waitFor(() => (sim.receivingCount > 0 ? true : undefined), 15_000, 'bound again');
    // The SMSC delivers again what got no answer, and (as after a lost answer) some that did.
    await Promise.all(originateAll(all.filter((i) => !answered.has(i) || i % 3 === 0)));
    await Promise.all(originateAll(all.filter((i) => !answered.has(i))));
    expect(answered.size).toBe(count);

    const { rows } = await run.db.query<{ content: string; n: number }>(
      `SELECT content, count(*)::int AS n FROM inbound_messages
        WHERE content LIKE 'reply %' GROUP BY content`,
    );
    expect(rows).toHaveLength(count);
    expect(rows.filter((r) => r.n !== 1)).toEqual([]);
    await waitFor(
      () =>
        texts('/carol').filter((t) => t.startsWith('reply ')).length >= count ? true : undefined,
      20_000,
      'every reply at the webhook',
    );
    await webhooksSettled();
    const replies = texts('/carol').filter((t) => t.startsWith('reply '));
    expect(new Set(replies).size).toBe(count);
    expect(replies).toHaveLength(count);
  });
});
