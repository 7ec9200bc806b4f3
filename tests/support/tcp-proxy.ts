import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay on loopback in front of a real server (Postgres, RabbitMQ, Redis), so that a test
 * can make that dependency disappear for the processes pointed at the relay, and come back, without
 * touching the server others use. Closed, it refuses connections and has cut the open ones, as a
 * stopped server would.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    readonly port: number,
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** A relay from 127.0.0.1:<free port> to the target; closed until open() unless `open`. */
  static async start(
    target: { host: string; port: number },
    options: { open?: boolean } = {},
  ): Promise<TcpProxy> {
    const port = await new Promise<number>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const proxy = new TcpProxy(port, target.host, target.port);
    if (options.open ?? true) await proxy.open();
    return proxy;
  }

  /** The target's URL with host and port replaced by the relay's. */
  static rewrite(url: string, port: number): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(port);
    return parsed.toString().replace(/\/$/, '');
  }

  get isOpen(): boolean {
    return this.server !== undefined;
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  private relay(client: Socket): void {
    this.track(client);
    const upstream = createConnection(this.targetPort, this.targetHost);
    this.track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  }

  /** Listens again on the same port. */
  async open(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => this.relay(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  /** Stops listening and cuts every relayed connection. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
