import type { IncomingMessage } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { MessageStatus } from '@smsgw/contracts';
import { HttpError, createLogger } from '@smsgw/kit';
import type { SendAcceptor } from '@smsgw/acceptance';
import { kannelSendsmsAnswerer } from '../src/edge/kannel-sendsms-routes';

/**
 * Kannel sendsms with several receivers when one fails for now: the database or the bus failing a
 * moment, which a black-box test of embedded mode cannot make happen to one receiver and not to
 * the others. The acceptance here is a stand-in that fails as the real one does (503) and records
 * what it accepted under which id, as the messages table does.
 */

const principal = { accountId: 'acct-1', username: 'kannel', via: 'basic' as const };
const request = (to: string) =>
  ({
    url: `/cgi-bin/sendsms?username=kannel&password=pw&text=hi&to=${encodeURIComponent(to)}`,
    headers: {},
  }) as unknown as IncomingMessage;

/** What the stand-in did: each try (receiver and id) and the ids it accepted. */
function acceptance(
  fails: (to: string, tryOfReceiver: number) => 'ok' | 'fail' | 'commit-then-fail' | 'refuse',
) {
  const tries: { to: string; id: string | undefined }[] = [];
  const accepted = new Set<string>();
  const accept: SendAcceptor = async (_principal, body, { id }) => {
    // Answered on a later turn, as a database statement is.
    await nextTurn();
    const to = (body as { to: string }).to;
    tries.push({ to, id });
    const outcome = fails(to, tries.filter((t) => t.to === to).length);
    if (outcome === 'refuse') throw new HttpError('NO_ROUTE', `No route for ${to}`);
    if (outcome === 'fail')
      throw new HttpError('SERVICE_UNAVAILABLE', 'The message could not be recorded; try again');
    if (id === undefined || accepted.has(id)) throw new Error('accepted twice');
    accepted.add(id);
    // Committed, but its answer lost on the way (the connection broke after COMMIT).
    if (outcome === 'commit-then-fail')
      throw new HttpError('SERVICE_UNAVAILABLE', 'connection lost');
    return { id, cost: '1', segments: 1 };
  };
  const answer = kannelSendsmsAnswerer({
    caller: () => Promise.resolve(principal),
    accept,
    store: {
      status: (_accountId: string, id: string) =>
        Promise.resolve(
          accepted.has(id) ? ({ id } as unknown as MessageStatus['data']) : undefined,
        ),
    },
    maxBodyBytes: 1 << 20,
    corsAllowedOrigins: [],
    logger: createLogger('test', 'silent'),
    kannelTlvs: [],
  });
  return { answer: (to: string) => answer(request(to), undefined), tries, accepted };
}

describe('Kannel sendsms, a receiver that fails for now', () => {
  it('is tried again with the same id and, accepted then, answered as sent', async () => {
    const { answer, tries, accepted } = acceptance((to, n) =>
      to === '2' && n === 1 ? 'fail' : 'ok',
    );
    const reply = await answer('1 2 3');
    expect(reply).toEqual({ status: 202, text: '0: Accepted for delivery' });
    const ofTwo = tries.filter((t) => t.to === '2');
    expect(ofTwo).toHaveLength(2);
    expect(ofTwo[1].id).toBe(ofTwo[0].id);
    expect(accepted.size).toBe(3);
  });

  it('is found accepted when its commit went through although the try failed, and not accepted twice', async () => {
    const { answer, tries, accepted } = acceptance((to) =>
      to === '2' ? 'commit-then-fail' : 'ok',
    );
    const reply = await answer('1 2 3');
    expect(reply).toEqual({ status: 202, text: '0: Accepted for delivery' });
    expect(tries.filter((t) => t.to === '2')).toHaveLength(1);
    expect(accepted.size).toBe(3);
  });

  it('still failing after three tries, is named failed in the 202 of those sent', async () => {
    const { answer, tries } = acceptance((to) => (to === '2' ? 'fail' : 'ok'));
    const reply = await answer('1 2 3');
    expect(reply).toEqual({
      status: 202,
      text: '0: Accepted for delivery. Failed receivers are: 2',
    });
    expect(tries.filter((t) => t.to === '2')).toHaveLength(3);
  });

  it('refused for good, is not tried again', async () => {
    const { answer, tries } = acceptance((to) => (to === '2' ? 'refuse' : 'ok'));
    const reply = await answer('1 2 3');
    expect(reply).toEqual({
      status: 202,
      text: '0: Accepted for delivery. Denied receivers are: 2',
    });
    expect(tries.filter((t) => t.to === '2')).toHaveLength(1);
  });

  it('is tried again only within 2 s of the first receiver, however many fail', async () => {
    const receivers = Array.from({ length: 40 }, (_, i) => String(i + 1));
    const { answer, tries } = acceptance((to) => (to === '1' ? 'ok' : 'fail'));
    const started = Date.now();
    const reply = await answer(receivers.join(' '));
    // 2 s and a busy machine's timer lag; without the bound, 39 receivers × 0.5 s of backoff.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(reply.status).toBe(202);
    expect(reply.text).toBe(
      `0: Accepted for delivery. Failed receivers are: ${receivers.slice(1).join(' ')}`,
    );
    // Each failing receiver tried at least once; the retries stopped when the 2 s ran out.
    expect(tries.length).toBeGreaterThanOrEqual(40);
    expect(tries.length).toBeLessThan(40 + 2 * 39);
  });
});
