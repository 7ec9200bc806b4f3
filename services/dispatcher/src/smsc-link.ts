import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@smsgw/kit';
import { SmppSimulator, simulatorControl } from '@smsgw/smsc';

export interface SmscLink {
  /** The `default` connector's URL: SMSC_URL, or the built-in simulator's. */
  url: string | undefined;
  /** Stops what the link started besides the connector (the built-in simulator). */
  close(): Promise<void>;
  /** The built-in simulator's control endpoint (POST /originate: a handset's reply), on loopback. */
  simulatorControlUrl?: string;
}

/** What the built-in simulator remembers of what it took (GET /received), the most recent. */
const EMBEDDED_SIMULATOR_RECORDS = 10_000;

/**
 * The `default` connector's URL: SMSC_URL; unset, a built-in simulator on loopback reached over a
 * real SMPP session, so embedded mode exercises the same code as production.
 */
export async function openSmscLink(
  smscUrl: string | undefined,
  logger: Logger,
  simulatorOptions: { deliveryReceipts?: boolean } = {},
): Promise<SmscLink> {
  if (smscUrl !== undefined) return { url: smscUrl, close: () => Promise.resolve() };
  const simulator = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: simulatorOptions.deliveryReceipts ?? true,
    latencyMs: 0,
    keepRecords: EMBEDDED_SIMULATOR_RECORDS,
    onReceived: (submit, text) =>
      logger.info(
        {
          to: submit.to,
          from: submit.from,
          dataCoding: submit.dataCoding,
          smscId: submit.smscId,
          text,
        },
        'simulator received submit_sm',
      ),
  });
  const { host, port } = await simulator.start();
  const control = createServer(simulatorControl(simulator));
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  const simulatorControlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;
  logger.info(
    { host, port, control: simulatorControlUrl },
    'SMSC_URL unset: using the built-in SMPP simulator',
  );
  return {
    url: `smpp://simulator:simulator@${host}:${port}?window=50`,
    simulatorControlUrl,
    close: async () => {
      control.close();
      await simulator.stop();
    },
  };
}
