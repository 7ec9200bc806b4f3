/** Runs a service's main; a failure to start is one line on stderr and exit 1, not a stack dump. */
export function runMain(service: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(
      `${service} failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  });
}
