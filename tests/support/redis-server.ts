import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { waitFor } from '@smsgw/kit/testing';

/** A Redis of the test's own (no persistence), so a test can stop it or start from empty. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  await waitFor(
    () =>
      new Promise<true | undefined>((resolve) => {
        const socket = createConnection(port, '127.0.0.1', () => (socket.end(), resolve(true)));
        socket.on('error', () => resolve(undefined));
      }),
    10_000,
  );
  return child;
}
