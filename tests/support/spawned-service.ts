import { spawnServiceProcess, waitFor, type ServiceProcess } from '@smsgw/kit/testing';

/**
 * A service process started without waiting for it to be ready (startService waits), for tests
 * that start one while a dependency is down and watch it wait.
 */
export interface SpawnedService extends ServiceProcess {
  alive(): boolean;
  /** /readyz's status and checks; status 0 when nothing answers. */
  readiness(): Promise<{ status: number; checks: Record<string, boolean> }>;
  /** Waits until /readyz answers 200; fails at once if the process exits. */
  ready(timeoutMs: number): Promise<void>;
}

export async function spawnService(
  name: string,
  env: Record<string, string>,
): Promise<SpawnedService> {
  // The whole log of a long wait is kept: the tests read every attempt's line.
  const service = await spawnServiceProcess(name, env, [], 200_000);
  const { child, url } = service;
  const alive = () => child.exitCode === null && child.signalCode === null;
  const readiness = async () => {
    try {
      const reply = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
      const body = (await reply.json()) as { checks?: Record<string, boolean> };
      return { status: reply.status, checks: body.checks ?? {} };
    } catch {
      return { status: 0, checks: {} };
    }
  };
  return {
    ...service,
    alive,
    readiness,
    ready: async (timeoutMs) => {
      await waitFor(
        async () => {
          if (!alive())
            throw new Error(`${name} exited with ${child.exitCode}:\n${service.output()}`);
          return (await readiness()).status === 200;
        },
        timeoutMs,
        `${name} ready`,
        100,
      );
    },
  };
}
