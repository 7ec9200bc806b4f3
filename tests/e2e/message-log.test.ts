/**
 * The message log in distributed mode: the scenario of tests/support/message-log-scenario.ts
 * against auth, api-gateway, batch-scheduler, dispatcher and callback-notifier as processes on
 * real Postgres, RabbitMQ and Redis, with two simulators as two operators.
 */
import type { ServiceProcess } from '@smsgw/kit/testing';
import { SmppSimulator } from '@smsgw/smsc';
import { E2E_ADMIN_TOKEN, E2E_JWT_SECRET, useDistributedRun } from '../support/distributed';
import { describeMessageLog } from '../support/message-log-scenario';
import { CallbackReceiver } from '../support/receiver';

const run = useDistributedRun();
const receiver = new CallbackReceiver();
let home: SmppSimulator;
let abroadPort = 0;
let auth: ServiceProcess;
let gateway: ServiceProcess;
let dispatcher: ServiceProcess;

beforeAll(async () => {
  home = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: true,
    receiptStat: (to) => (to.startsWith('4179000009') ? 'UNDELIV' : undefined),
  });
  const abroad = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: true,
    rejectDestinations: /^44/,
  });
  run.simulators.push(home, abroad);
  const homePort = (await home.start()).port;
  abroadPort = (await abroad.start()).port;
  run.cluster.connectors.push('op-b');
  await receiver.start();
  auth = await run.start('auth', { ADMIN_TOKEN: E2E_ADMIN_TOKEN, JWT_SECRET: E2E_JWT_SECRET });
  gateway = await run.start('api-gateway', {
    AUTH_URL: auth.url,
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
  });
  // The statistics agree with the CDRs once counted: counted every second here, two seconds after.
  await run.start('batch-scheduler', { STATS_ROLLUP_SECONDS: '1', STATS_LAG_SECONDS: '2' });
  await run.start('callback-notifier', {
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    CALLBACK_RETRY_BASE_MS: '100',
  });
  dispatcher = await run.start('dispatcher', {
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${homePort}?window=10`,
  });
}, 120_000);

afterAll(() => receiver.stop());

describeMessageLog(() => ({
  gateway: gateway.url,
  admin: auth.url,
  adminToken: E2E_ADMIN_TOKEN,
  home,
  abroadPort,
  receiver,
  dispatcherMetrics: dispatcher.url,
}));
