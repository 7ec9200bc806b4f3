import { spawnSync } from 'node:child_process';
import type { AmqpBus } from '../../src';

export const LOCAL_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

/**
 * The broker the AMQP tests use. AMQP_URL set (CI): that one, and a broker that cannot be reached
 * fails the tests. Unset: the local default if its port answers, else undefined (tests skip, with
 * a warning). Synchronous, because jest registers tests synchronously.
 */
export function resolveAmqpUrl(): string | undefined {
  const fromEnv = process.env['AMQP_URL'];
  if (fromEnv) return fromEnv;
  const probe = spawnSync(
    process.execPath,
    [
      '-e',
      `const s=require('node:net').connect(5672,'127.0.0.1');s.setTimeout(1500);s.on('connect',()=>process.exit(0));s.on('error',()=>process.exit(1));s.on('timeout',()=>process.exit(1));`,
    ],
    { timeout: 3000 },
  );
  if (probe.status === 0) return LOCAL_AMQP_URL;
  console.warn(
    `AMQP_URL is unset and no RabbitMQ answers at ${LOCAL_AMQP_URL}: the RabbitMQ bus tests are SKIPPED (CI sets AMQP_URL)`,
  );
  return undefined;
}

/** Destroys the bus's TCP socket without an AMQP close, as a killed process or a cut cable would. */
export function killConnection(bus: AmqpBus): void {
  const model = (
    bus as unknown as { connection?: { connection: { stream: { destroy(err?: Error): void } } } }
  ).connection;
  if (!model) throw new Error('the bus has no connection to kill');
  model.connection.stream.destroy(new Error('connection killed by the test'));
}
