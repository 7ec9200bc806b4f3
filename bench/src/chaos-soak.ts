import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from '@smsgw/kit/testing';

/**
 * `pnpm soak --chaos [--minutes N]`: the chaos soak lives beside the fault matrix whose faults and
 * accounting it shares (tests/faults/chaos.soak.ts), and reads the run's tables as the matrix
 * does, so it runs under jest against the sources. Resolves when it passed; rejects with its exit
 * code otherwise.
 */
export function benchChaosSoak(minutes: number): Promise<void> {
  const jest = join(WORKSPACE_ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
  const child = spawn(
    process.execPath,
    [
      '--experimental-vm-modules',
      '--disable-warning=ExperimentalWarning',
      jest,
      '--runInBand',
      '--testMatch',
      '<rootDir>/tests/faults/chaos.soak.ts',
      '--',
      'tests/faults/chaos.soak.ts',
    ],
    {
      cwd: WORKSPACE_ROOT,
      stdio: 'inherit',
      env: { ...process.env, FAULTS: '1', CHAOS_MINUTES: String(minutes) },
    },
  );
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`chaos soak failed (exit ${code ?? signal}): see its figures above`)),
    );
  });
}

/** `--minutes N` (or `--minutes=N`) from the command line, else the default. */
export function minutesOption(args: readonly string[], fallback: number): number {
  const at = args.findIndex((a) => a === '--minutes' || a.startsWith('--minutes='));
  if (at < 0) return fallback;
  const value = args[at].includes('=') ? args[at].split('=')[1] : args[at + 1];
  const minutes = Number(value);
  if (!Number.isFinite(minutes) || minutes <= 0)
    throw new Error(`--minutes wants a number of minutes above 0, not ${value}`);
  return minutes;
}
