import { createServer } from 'node:http';
import { createLogger, loadConfig, runMain } from '@smsgw/kit';
import { simulatorConfigShape, simulatorOptions } from './simulator-config';
import { SmppSimulator } from './smpp-simulator';

/** The SMPP simulator as its own process (docker-compose, manual trials): SMPP plus a small HTTP view. */
async function main(): Promise<void> {
  const config = loadConfig(simulatorConfigShape);
  const logger = createLogger('smpp-simulator', config.LOG_LEVEL);
  const simulator = new SmppSimulator(simulatorOptions(config));
  const smppAddress = await simulator.start();
  const http = createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && req.url === '/healthz') return reply(200, { status: 'ok' });
    if (req.method === 'GET' && req.url === '/received')
      return reply(200, { count: simulator.received.length, messages: simulator.messages() });
    if (req.method === 'POST' && req.url === '/reset') {
      simulator.reset();
      return reply(200, { status: 'reset' });
    }
    reply(404, { detail: { code: 'NOT_FOUND', message: `No route for ${req.method} ${req.url}` } });
  });
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
