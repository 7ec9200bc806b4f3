import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@smsgw/kit/testing';
import {
  KANNEL_PASSWORD,
  kannelConfig,
  type KannelDatabase,
  type KannelDlrStorage,
} from './kannel-config';

const BEARERBOX = '/usr/sbin/bearerbox';
const SMSBOX = '/usr/sbin/smsbox';

/**
 * Kannel's boxes from Debian's `kannel` package. When they are missing, the package is installed
 * with apt-get (as root, as on the bench machines); when that cannot be done the bench says so and
 * stops, rather than reporting our figures without their anchor.
 */
export function ensureKannelInstalled(): string {
  if (existsSync(BEARERBOX) && existsSync(SMSBOX)) return 'installed already';
  const isRoot = process.getuid?.() === 0;
  if (!isRoot)
    throw new Error(
      'Kannel is not installed and this bench is not root: run `apt-get install -y kannel` (Debian package kannel, 1.4.5) and try again',
    );
  const install = spawnSync('apt-get', ['install', '-y', 'kannel'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: 600_000,
  });
  if (install.status !== 0 || !existsSync(BEARERBOX))
    throw new Error(
      `Kannel could not be installed (apt-get install -y kannel exited ${install.status}):\n${String(install.stderr).slice(-2000)}`,
    );
  return 'installed by this run (apt-get install -y kannel)';
}

export interface KannelBoxes {
  storage: KannelDlrStorage;
  bearerbox: ChildProcess;
  smsbox: ChildProcess;
  /** http://127.0.0.1:<port>/cgi-bin/sendsms */
  sendsmsUrl: string;
  stop(): Promise<void>;
}

/**
 * bearerbox and smsbox with their configuration in a temporary directory, bound to the SMSC on
 * `smscPort`; ready when the SMPP link is online in bearerbox's status and smsbox answers HTTP.
 */
export async function startKannel(
  storage: KannelDlrStorage,
  smscPort: number,
  database?: KannelDatabase,
): Promise<KannelBoxes> {
  const dir = mkdtempSync(join(tmpdir(), `kannel-${storage}-`));
  const ports = {
    admin: await freePort(),
    smsbox: await freePort(),
    sendsms: await freePort(),
    smsc: smscPort,
  };
  const conf = join(dir, 'kannel.conf');
  writeFileSync(conf, kannelConfig(storage, ports, join(dir, 'kannel.store'), database));
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  // -v 3: errors only on stderr (Kannel's levels: 0 debug … 4 panic).
  const box = (binary: string) => {
    const child = spawn(binary, ['-v', '3', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    return child;
  };
  const stopOne = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const bearerbox = box(BEARERBOX);
  let smsbox: ChildProcess | undefined;
  const stop = async () => {
    if (smsbox) await stopOne(smsbox);
    await stopOne(bearerbox);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(
      `bearerbox online (${storage})`,
      () => output,
      bearerbox,
      async () => {
        const status = await fetch(
          `http://127.0.0.1:${ports.admin}/status.txt?password=${KANNEL_PASSWORD}`,
        );
        return /online/.test(await status.text());
      },
    );
    smsbox = box(SMSBOX);
    const started = smsbox;
    await until(
      `smsbox listening (${storage})`,
      () => output,
      started,
      async () => {
        const reply = await fetch(`http://127.0.0.1:${ports.sendsms}/cgi-bin/sendsms`);
        await reply.arrayBuffer();
        return true;
      },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    storage,
    bearerbox,
    smsbox,
    sendsmsUrl: `http://127.0.0.1:${ports.sendsms}/cgi-bin/sendsms`,
    stop,
  };
}

async function until(
  what: string,
  output: () => string,
  child: ChildProcess,
  ready: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what}: exited ${child.exitCode}\n${output()}`);
    try {
      if (await ready()) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${what}: not ready in 30 s\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
