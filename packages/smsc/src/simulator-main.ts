import { createServer } from 'node:http';
import { createLogger, loadConfig, runMain } from '@smsgw/kit';
import { simulatorConfigShape, simulatorOptions } from './simulator-config';
import { SmppSimulator } from './smpp-simulator';
import { simulatorControl } from './simulator-control';

/** The SMPP simulator as its own process (docker-compose, manual trials): SMPP plus its HTTP control endpoint. */
async function main(): Promise<void> {
  const config = loadConfig(simulatorConfigShape);
  const logger = createLogger('smpp-simulator', config.LOG_LEVEL);
  const simulator = new SmppSimulator(simulatorOptions(config));
  const smppAddress = await simulator.start();
  const http = createServer(simulatorControl(simulator, { token: config.SIM_CONTROL_TOKEN }));
  await new Promise<void>((resolve) => http.listen(config.SIM_HTTP_PORT, config.SIM_HOST, resolve));
  logger.info({ smpp: smppAddress, http: config.SIM_HTTP_PORT }, 'SMPP simulator listening');
  const stop = () => {
    http.close();
    void simulator.stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

runMain('smpp-simulator', main);
