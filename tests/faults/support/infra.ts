import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@smsgw/kit/testing';
import { freePort } from '../../support/processes';

/**
 * Private servers for the fault matrix: it stops and starts them, so it must not use the shared
 * ones other test runs on the machine depend on. Each lives in a temporary directory on its own
 * loopback port and is removed by stop().
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(command, args, { env, encoding: 'utf8', timeout: 90_000 });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`,
    );
  return result.stdout;
}

/** Postgres refuses to run as root: as root, its commands run as the postgres user. */
function asPostgres(command: string, args: string[]): string {
  const isRoot = process.getuid?.() === 0;
  return isRoot ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);
}

function postgresBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).sort() : [];
  const found = versions.reverse().find((v) => existsSync(join(base, v, 'bin', 'pg_ctl')));
  if (!found) throw new Error('the fault matrix needs a Postgres server installation (pg_ctl)');
  return join(base, found, 'bin');
}

export class PrivatePostgres {
  private constructor(
    private readonly dir: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async start(): Promise<PrivatePostgres> {
    const bin = postgresBin();
    const dir = mkdtempSync(join(tmpdir(), 'smsgw-faults-pg-'));
    if (process.getuid?.() === 0) run('chown', ['postgres', dir]);
    const port = await freePort();
    asPostgres(join(bin, 'initdb'), ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres']);
    const pg = new PrivatePostgres(dir, port, bin);
    pg.ctl('start');
    return pg;
  }

  private ctl(action: 'start' | 'stop'): void {
    const args = ['-D', join(this.dir, 'data'), '-w', '-t', '60', '-l', join(this.dir, 'log')];
    if (action === 'start')
      args.push(
        '-o',
        `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`,
      );
    else args.push('-m', 'fast');
    asPostgres(join(this.bin, 'pg_ctl'), [action, ...args]);
  }

  /** Stopped (fast: sessions are cut, as a failover does) for downMs, then started again. */
  async restart(downMs: number): Promise<void> {
    this.ctl('stop');
    await sleep(downMs);
    this.ctl('start');
  }

  async stop(): Promise<void> {
    try {
      this.ctl('stop');
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

export class PrivateRedis {
  private child: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.launch();
    return redis;
  }

  private async launch(): Promise<void> {
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await waitFor(async () => portOpen(this.port), 10_000, 'the private Redis listening', 50);
  }

  private async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  /** Killed (its keys are gone, as after a restart without persistence), started after downMs. */
  async restart(downMs: number): Promise<void> {
    await this.kill();
    await sleep(downMs);
    await this.launch();
  }

  stop(): Promise<void> {
    return this.kill();
  }
}

/**
 * A RabbitMQ node of its own (its own node name, port and data directory), so that restarting it
 * disturbs nobody else. rabbitmq-server runs as the rabbitmq user, so the directory is theirs.
 */
export class PrivateRabbit {
  private constructor(
    private readonly dir: string,
    readonly port: number,
    private readonly node: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  get url(): string {
    return `amqp://guest:guest@127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRabbit> {
    const dir = mkdtempSync(join(tmpdir(), 'smsgw-faults-rabbit-'));
    const port = await freePort();
    const distPort = await freePort();
    const node = `smsgw-faults-${port}@localhost`;
    writeFileSync(
      join(dir, 'rabbitmq.conf'),
      `listeners.tcp.local = 127.0.0.1:${port}\nloopback_users = none\n`,
    );
    writeFileSync(join(dir, 'plugins'), '[].\n');
    if (process.getuid?.() === 0) {
      const owner = spawnSync('id', ['-u', 'rabbitmq'], { encoding: 'utf8' });
      const uid = Number(owner.stdout.trim());
      if (owner.status === 0 && uid > 0)
        for (const path of [dir, join(dir, 'rabbitmq.conf'), join(dir, 'plugins')])
          chownSync(path, uid, -1);
    }
    const env = {
      ...process.env,
      RABBITMQ_NODENAME: node,
      RABBITMQ_DIST_PORT: String(distPort),
      RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: join(dir, 'log'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'plugins'),
      RABBITMQ_PID_FILE: join(dir, 'pid'),
      RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq.conf'),
    };
    const rabbit = new PrivateRabbit(dir, port, node, env);
    run('rabbitmq-server', ['-detached'], env);
    // -detached returns before the node registers, when await_startup still finds no node.
    await waitFor(async () => portOpen(port), 120_000, 'the private RabbitMQ listening', 500);
    rabbit.ctl('await_startup', '--timeout', '60');
    return rabbit;
  }

  private ctl(...args: string[]): void {
    run('rabbitmqctl', ['-n', this.node, ...args], this.env);
  }

  /** stop_app / start_app: every connection is cut; durable queues and their messages stay. */
  async restart(downMs: number): Promise<void> {
    this.ctl('stop_app');
    await sleep(downMs);
    this.ctl('start_app');
    await waitFor(async () => portOpen(this.port), 30_000, 'RabbitMQ listening again', 100);
  }

  async stop(): Promise<void> {
    try {
      this.ctl('stop');
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
