import { createServer, type Server, type Socket } from 'node:net';
import pino from 'pino';
import { AmqpBus } from '../src/bus/amqp-bus';

/**
 * A broker that takes the TCP connection and never answers the AMQP handshake (one still booting,
 * or half dead) fails the attempt after the connect timeout, so a service waiting for RabbitMQ
 * retries and logs instead of hanging unready without a word.
 */
describe('AmqpBus.connect to a broker that never answers', () => {
  let server: Server;
  const sockets = new Set<Socket>();
  let port = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('rejects after connectTimeoutMs', async () => {
    const started = Date.now();
    await expect(
      AmqpBus.connect({
        url: `amqp://guest:guest@127.0.0.1:${port}`,
        namespace: 'connect-timeout',
        logger: pino({ level: 'silent' }),
        connectTimeoutMs: 300,
      }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(sockets.size).toBe(1);
  }, 15_000);
});
