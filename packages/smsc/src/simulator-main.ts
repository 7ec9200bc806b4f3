import { createServer } from 'node:http';
import { z } from 'zod';
import { createLogger, loadConfig, runMain } from '@smsgw/kit';
import { SmppSimulator } from './smpp-simulator';

const rate = z.coerce.number().min(0).max(1).default(0);
const simulatorConfigShape = {
  SIM_HOST: z.string().default('127.0.0.1'),
  SIM_PORT: z.coerce.number().int().min(0).max(65535).default(2775),
  SIM_HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8025),
  SIM_SYSTEM_ID: z.string().optional(),
  SIM_PASSWORD: z.string().optional(),
  /** Milliseconds before each submit_sm_resp: `20`, or a range `5-50`. */
  SIM_LATENCY_MS: z
    .string()
    .regex(/^\d+(-\d+)?$/, 'a number of milliseconds or a range like 5-50')
    .default('0')
    .transform((v): number | [number, number] => {
      const [min, max] = v.split('-').map(Number);
      return max === undefined ? min! : [min!, Math.max(min!, max)];
    }),
  SIM_FAILURE_RATE: rate,
  SIM_THROTTLE_RATE: rate,
  SIM_DELIVERY_RECEIPTS: z.enum(['true', 'false']).default('true'),
  SIM_RECEIPT_DELAY_MS: z.coerce.number().min(0).default(100),
  LOG_LEVEL: z.string().default('info'),
};

/** The SMPP simulator as its own process (docker-compose, manual trials): SMPP plus a small HTTP view. */
async function main(): Promise<void> {
  const config = loadConfig(simulatorConfigShape);
  const logger = createLogger('smpp-simulator', config.LOG_LEVEL);
  const simulator = new SmppSimulator({
    host: config.SIM_HOST,
    port: config.SIM_PORT,
    ...(config.SIM_SYSTEM_ID !== undefined && { systemId: config.SIM_SYSTEM_ID }),
    ...(config.SIM_PASSWORD !== undefined && { password: config.SIM_PASSWORD }),
    latencyMs: config.SIM_LATENCY_MS,
    failureRate: config.SIM_FAILURE_RATE,
    throttleRate: config.SIM_THROTTLE_RATE,
    deliveryReceipts: config.SIM_DELIVERY_RECEIPTS === 'true',
    receiptDelayMs: config.SIM_RECEIPT_DELAY_MS,
  });
  const smppAddress = await simulator.start();
  const http = createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && req.url === '/healthz') return reply(200, { status: 'ok' });
    if (req.method === 'GET' && req.url === '/received') return reply(200, { count: simulator.received.length, messages: simulator.messages() });
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
