import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@smsgw/kit';
import {
  HttpConnector,
  SmppConnector,
  SmppSimulator,
  parseHttpSmscUrl,
  parseSmscUrl,
  simulatorControl,
  type SmscConnector,
} from '@smsgw/smsc';

export interface SmscLink {
  connector: SmscConnector;
  /** The connector's cluster-wide cap in messages (PDUs) per second; 0: none. */
  throughput: number;
  /** Stops what the link started besides the connector (the built-in simulator). */
  close(): Promise<void>;
  /** The built-in simulator's control endpoint (POST /originate: a handset's reply), on loopback. */
  simulatorControlUrl?: string;
}

/**
 * The connector SMSC_URL names; unset, a built-in simulator on loopback reached over a real SMPP
 * session, so embedded mode exercises the same code as production.
 */
export async function openSmscLink(
  smscUrl: string | undefined,
  logger: Logger,
  simulatorOptions: { deliveryReceipts?: boolean } = {},
): Promise<SmscLink> {
  if (smscUrl !== undefined) {
    if (smscUrl.startsWith('smpp:')) {
      const options = parseSmscUrl(smscUrl);
      return {
        connector: new SmppConnector({ ...options, name: 'smsc' }, logger),
        throughput: options.throughput,
        close: () => Promise.resolve(),
      };
    }
    return {
      connector: new HttpConnector({ ...parseHttpSmscUrl(smscUrl), name: 'http' }, logger),
      throughput: 0,
      close: () => Promise.resolve(),
    };
  }
  const simulator = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: simulatorOptions.deliveryReceipts ?? true,
    latencyMs: 0,
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
  const connector = new SmppConnector(
    { ...parseSmscUrl(`smpp://simulator:simulator@${host}:${port}?window=50`), name: 'simulator' },
    logger,
  );
  return {
    connector,
    throughput: 0,
    simulatorControlUrl,
    close: async () => {
      control.close();
      await simulator.stop();
    },
  };
}
