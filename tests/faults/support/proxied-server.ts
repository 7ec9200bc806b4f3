import { TcpProxy } from '../../support/tcp-proxy';
import type { Server } from './run-cluster';

/** The servers' ports when a URL leaves them out. */
const DEFAULT_PORTS: Record<string, number> = { 'postgres:': 5432, 'amqp:': 5672, 'redis:': 6379 };

/**
 * One of the machine's servers as the chaos soak's services reach it: through a TCP relay the
 * faults close and open, so others' work on the machine keeps its Postgres, RabbitMQ and Redis.
 * Closed, the relay refuses connections and has cut the open ones, as a stopped server would.
 */
export class ProxiedServer implements Server {
  private constructor(
    private readonly proxy: TcpProxy,
    readonly url: string,
  ) {}

  static async start(targetUrl: string): Promise<ProxiedServer> {
    const target = new URL(targetUrl);
    const proxy = await TcpProxy.start({
      host: target.hostname,
      port: Number(target.port) || DEFAULT_PORTS[target.protocol],
    });
    return new ProxiedServer(proxy, TcpProxy.rewrite(targetUrl, proxy.port));
  }

  down(): Promise<void> {
    return this.proxy.close();
  }

  up(): Promise<void> {
    return this.proxy.open();
  }

  async restart(downMs: number): Promise<void> {
    await this.down();
    await new Promise((r) => setTimeout(r, downMs));
    await this.up();
  }
}
