/**
 * The message log in embedded mode: the scenario of tests/support/message-log-scenario.ts against
 * one process, with two simulators as two operators.
 */
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { describeMessageLog } from '../support/message-log-scenario';
import { CallbackReceiver } from '../support/receiver';

let home: SmppSimulator;
let abroad: SmppSimulator;
let abroadPort = 0;
let gw: RunningGateway;
const receiver = new CallbackReceiver();

beforeAll(async () => {
  home = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: true,
    receiptStat: (to) => (to.startsWith('4179000009') ? 'UNDELIV' : undefined),
  });
  abroad = new SmppSimulator({
    host: '127.0.0.1',
    port: 0,
    deliveryReceipts: true,
    rejectDestinations: /^44/,
  });
  const homePort = (await home.start()).port;
  abroadPort = (await abroad.start()).port;
  await receiver.start();
  gw = await startEmbedded({
    SMSC_URL: `smpp://gw:pw@127.0.0.1:${homePort}`,
    CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
    // The statistics agree with the CDRs once counted: counted every second here, two seconds after.
    STATS_ROLLUP_SECONDS: '1',
    STATS_LAG_SECONDS: '2',
  });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await home?.stop();
  await abroad?.stop();
  await receiver.stop();
});

describeMessageLog(() => ({
  gateway: gw.base,
  admin: gw.base,
  adminToken: ADMIN_TOKEN,
  home,
  abroadPort,
  receiver,
  dispatcherMetrics: gw.base,
}));
