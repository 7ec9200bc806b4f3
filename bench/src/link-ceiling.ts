import { createLogger } from '@smsgw/kit';
import { SmppConnector, SmppSimulator, parseSmscUrl, splitMessage } from '@smsgw/smsc';

/** The SMSC-link ceiling: a plain SMPP client with the same window, straight to the simulator. */
export async function linkCeiling(count: number, window: number): Promise<number> {
  const sim = new SmppSimulator({ host: '127.0.0.1', port: 0 });
  const { port } = await sim.start();
  const connector = new SmppConnector(
    parseSmscUrl(`smpp://bench:bench@127.0.0.1:${port}?window=${window}`),
    createLogger('bench', 'silent'),
  );
  await connector.start();
  const parts = splitMessage({ content: 'bulk' }, { maxParts: 1 }).parts;
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: window }, async () => {
      while (next < count) {
        next++;
        await connector.submit({
          to: String(41_700_000_000 + next),
          from: null,
          dataCoding: 0,
          parts,
          registeredDelivery: false,
        });
      }
    }),
  );
  const rate = count / ((Date.now() - started) / 1000);
  await connector.stop();
  await sim.stop();
  return Math.round(rate);
}
