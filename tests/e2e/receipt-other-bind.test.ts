import { waitFor } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { useDistributedRun } from '../support/distributed';
import { request } from '../support/http';
import { CallbackReceiver, type ReceivedCall } from '../support/receiver';

/**
 * SMSCs with separate TX/RX binds (and some with several transceivers) send a receipt on whichever
 * session of the account they like (docs/architecture.md § Receipts and message ids). Two
 * dispatchers bound as the same system_id, each with its own SmppConnector; the simulator sends
 * every receipt on the session that did NOT submit the message, so only the other dispatcher can
 * record it, through the shared database.
 */
describe('a receipt arriving on another bind of the same account', () => {
  const run = useDistributedRun();
  const receiver = new CallbackReceiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  it('is matched by the other dispatcher: the message is delivered and its delivery reports are sent', async () => {
    const sim = new SmppSimulator({
      host: '127.0.0.1',
      port: 0,
      systemId: 'smsgw',
      password: 'secret',
      deliveryReceipts: true,
      receiptDelayMs: 20,
      receiptSession: 'other',
    });
    run.simulators.push(sim);
    const { port } = await sim.start();
    const { gateway, credentials } = await run.gatewayWithAccount('binds', {
      // The gateway refuses a private dlr-url at acceptance unless allowed, as the notifier does.
      CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    });
    await run.start('callback-notifier', {
      CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
      CALLBACK_RETRY_BASE_MS: '100',
    });
    // Two binds of the default connector: each dispatcher holds one.
    const dispatcherEnv = {
      SMSC_URL: `smpp://smsgw:secret@127.0.0.1:${port}?window=10`,
      SMSC_BINDS: '2',
    };
    await Promise.all([
      run.start('dispatcher', dispatcherEnv),
      run.start('dispatcher', dispatcherEnv),
    ]);
    await waitFor(
      () => sim.binds.filter((b) => b.systemId === 'smsgw').length >= 2 && sim.sessionCount >= 2,
      30_000,
      'both dispatchers bound',
    );

    const sends = [
      ...Array.from({ length: 6 }, (_, i) => ({ to: `4179555000${i}`, content: `bind ${i}` })),
      { to: '41795550010', content: 'y'.repeat(200) }, // two parts, a receipt each
    ];
    const ids = await Promise.all(
      sends.map(async (message) => {
        const reply = await request(gateway.url, 'POST', '/secure/send', {
          auth: credentials,
          json: {
            ...message,
            dlr: 'yes',
            'dlr-url': `${receiver.base}/dlr`,
            'dlr-level': 3,
            'dlr-method': 'GET',
          },
        });
        expect(reply.status).toBe(200);
        return reply.body.data.slice('Success "'.length) as string;
      }),
    );

    const states = await waitFor(
      async () => {
        const { rows } = await run.db.query<{ id: string; state: string; smsc_id: string }>(
          `SELECT id, state, smsc_id FROM messages WHERE id = ANY($1::uuid[])`,
          [ids],
        );
        return rows.length === ids.length && rows.every((r) => r.state === 'delivered')
          ? rows
          : undefined;
      },
      30_000,
      'every message delivered',
    );
    // Every receipt really came on the other session: the submitting dispatcher never saw one.
    expect(sim.received).toHaveLength(8);
    expect(sim.receipts).toHaveLength(8);
    expect(sim.receipts.filter((r) => r.onSubmittingSession)).toEqual([]);

    const reportsOf = (id: string): ReceivedCall[] =>
      receiver.calls.filter((c) => c.query['id'] === id);
    await waitFor(
      () => ids.every((id) => reportsOf(id).length >= 2),
      30_000,
      'two reports per message',
    );
    for (const { id, smsc_id } of states) {
      const levels = reportsOf(id)
        .map((c) => c.query)
        .sort((a, b) => Number(a['level']) - Number(b['level']));
      expect(levels).toEqual([
        { id, level: '1', message_status: 'ESME_ROK', connector: 'default' },
        expect.objectContaining({
          id,
          level: '2',
          message_status: 'DELIVRD',
          id_smsc: smsc_id,
          connector: 'default',
        }),
      ]);
    }
  }, 180_000);
});
