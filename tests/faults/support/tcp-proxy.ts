import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { freePort } from '../../support/processes';
import type { Server as GatewayServer } from './run-cluster';

/**
 * A TCP proxy on loopback in front of one of the machine's servers, which the chaos soak takes
 * down instead of the server: others' work on the machine keeps its Postgres, RabbitMQ and Redis.
 * down() cuts every connection through it and closes its port (a client then gets ECONNREFUSED, as
 * from a stopped server); up() opens the same port again.
 */
export class TcpProxy implements GatewayServer {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly target: URL,
    readonly port: number,
  ) {}

  /** The target's URL with the proxy's address in place of the server's. */
  get url(): string {
    const url = new URL(this.target);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString().replace(/\/$/, '');
  }

  static async start(targetUrl: string): Promise<TcpProxy> {
    const proxy = new TcpProxy(new URL(targetUrl), await freePort());
    await proxy.up();
    return proxy;
  }

  up(): Promise<void> {
    const server = createServer((client) => this.pipe(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
  }

  private pipe(client: Socket): void {
    const upstream = createConnection(Number(this.target.port), this.target.hostname);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.setNoDelay(true);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async restart(downMs: number): Promise<void> {
    await this.down();
    await new Promise((r) => setTimeout(r, downMs));
    await this.up();
  }
}
