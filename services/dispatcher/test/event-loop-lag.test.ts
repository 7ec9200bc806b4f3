import { waitFor } from '@smsgw/kit/testing';
import { EventLoopLag } from '../src/throughput/event-loop-lag';

describe('EventLoopLag', () => {
  it('reads a loop that keeps time as near zero and a blocked one as late', async () => {
    const lag = new EventLoopLag();
    try {
      // Some of the histogram's 10 ms turns on an idle loop.
      await new Promise((r) => setTimeout(r, 200));
      expect(lag.meanMsSinceLast()).toBeLessThan(5);
      // The loop blocked for 200 ms: the turn taken after it is that late, and at most a few
      // on-time turns share the reading with it.
      const until = Date.now() + 200;
      while (Date.now() < until);
      const blocked = await waitFor(() => {
        const ms = lag.meanMsSinceLast();
        return ms > 0 ? ms : undefined;
      });
      expect(blocked).toBeGreaterThan(30);
    } finally {
      lag.stop();
    }
  });
});
