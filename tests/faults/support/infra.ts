import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@smsgw/kit/testing';
import { freePort } from '../../support/processes';

/** A server the matrix takes down and brings back, in two steps so a fault can act in between. */
export interface Dependency {
  restart(downMs: number): Promise<void>;
  down(): Promise<void>;
  up(): Promise<void>;
}

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

/**
 * Runs a command to completion, bounded. Asynchronous: the simulator and the webhook receiver live
 * in this process and must keep answering while a server stops or starts.
 */
function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${command} ${args.join(' ')} failed (${code}): ${out}`));
    });
  });
}

/** Postgres refuses to run as root: as root, its commands run as the postgres user. */
function asPostgres(command: string, args: string[]): Promise<string> {
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

export class PrivatePostgres implements Dependency {
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
    if (process.getuid?.() === 0) await run('chown', ['postgres', dir]);
    const port = await freePort();
    await asPostgres(join(bin, 'initdb'), [
      '-D',
      join(dir, 'data'),
      '-A',
      'trust',
      '-U',
      'postgres',
    ]);
    const pg = new PrivatePostgres(dir, port, bin);
    await pg.ctl('start');
    return pg;
  }

  private async ctl(action: 'start' | 'stop'): Promise<void> {
    const args = ['-D', join(this.dir, 'data'), '-w', '-t', '60', '-l', join(this.dir, 'log')];
    if (action === 'start')
      args.push(
        '-o',
        `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`,
      );
    else args.push('-m', 'fast');
    await asPostgres(join(this.bin, 'pg_ctl'), [action, ...args]);
  }

  /** Stopped (fast: sessions are cut, as a failover does) for downMs, then started again. */
  async restart(downMs: number): Promise<void> {
    await this.down();
    await sleep(downMs);
    await this.up();
  }

  down(): Promise<void> {
    return this.ctl('stop');
  }

  up(): Promise<void> {
    return this.ctl('start');
  }

  async stop(): Promise<void> {
    try {
      await this.ctl('stop');
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

export class PrivateRedis implements Dependency {
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
    await this.down();
    await sleep(downMs);
    await this.up();
  }

  down(): Promise<void> {
    return this.kill();
  }

  up(): Promise<void> {
    return this.launch();
  }

  stop(): Promise<void> {
    return this.kill();
  }
}

/**
 * A RabbitMQ node of its own (its own node name, port and data directory), so that restarting it
 * disturbs nobody else. rabbitmq-server runs as the rabbitmq user, so the directory is theirs.
 */
export class PrivateRabbit implements Dependency {
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
    await run('rabbitmq-server', ['-detached'], env);
    // -detached returns before the node registers, when await_startup still finds no node.
    await waitFor(async () => portOpen(port), 120_000, 'the private RabbitMQ listening', 500);
    await rabbit.ctl('await_startup', '--timeout', '60');
    return rabbit;
  }

  private async ctl(...args: string[]): Promise<void> {
    await run('rabbitmqctl', ['-n', this.node, ...args], this.env);
  }

  /** stop_app / start_app: every connection is cut; durable queues and their messages stay. */
  async restart(downMs: number): Promise<void> {
    await this.down();
    await sleep(downMs);
    await this.up();
  }

  down(): Promise<void> {
    return this.ctl('stop_app');
  }

  async up(): Promise<void> {
    await this.ctl('start_app');
    await waitFor(async () => portOpen(this.port), 30_000, 'RabbitMQ listening again', 100);
  }

  async stop(): Promise<void> {
    try {
      await this.ctl('stop');
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
