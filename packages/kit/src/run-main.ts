import { StartupAbortedError } from './dependency-wait';

/**
 * Runs a service's main; a failure to start is one line on stderr and exit 1, not a stack dump.
 * A start abandoned for a shutdown is no failure: the shutdown decides how the process exits.
 */
export function runMain(service: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    if (err instanceof StartupAbortedError) return;
    process.stderr.write(
      `${service} failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  });
}
