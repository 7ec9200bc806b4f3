import { TurnCork } from '../src/bus/turn-cork';
import { TickCork } from '../src/tick-cork';

const nextTurn = () => new Promise((r) => setImmediate(() => setImmediate(r)));

describe('TurnCork', () => {
  it('corks once per turn and uncorks after the writes scheduled in that turn', async () => {
    const calls: string[] = [];
    const socket = { cork: () => calls.push('cork'), uncork: () => calls.push('uncork') };
    const cork = new TurnCork();
    // Two publishes: amqplib's writer writes all pending frames in one immediate, scheduled from a
    // nextTick by the first of them; hold() follows each publish.
    process.nextTick(() => setImmediate(() => calls.push('write', 'write')));
    cork.hold(socket);
    cork.hold(socket);
    await nextTurn();
    expect(calls).toEqual(['cork', 'write', 'write', 'uncork']);
    cork.hold(socket);
    await nextTurn();
    expect(calls).toEqual(['cork', 'write', 'write', 'uncork', 'cork', 'uncork']);
  });

  it('does nothing without a socket', () => {
    expect(() => new TurnCork().hold(undefined)).not.toThrow();
  });
});

describe('TickCork', () => {
  it("corks once per turn and uncorks after the turn's promise reactions", async () => {
    const calls: string[] = [];
    const socket = { cork: () => calls.push('cork'), uncork: () => calls.push('uncork') };
    const cork = new TickCork();
    cork.hold(socket);
    void Promise.resolve().then(() => {
      calls.push('write');
      cork.hold(socket);
    });
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['cork', 'write', 'uncork']);
    cork.hold(socket);
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['cork', 'write', 'uncork', 'cork', 'uncork']);
  });
});
