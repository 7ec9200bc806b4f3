import type { Logger } from './logger';

export interface ShutdownStep {
  name: string;
  run: () => Promise<void>;
}

/**
 * On SIGTERM or SIGINT runs the steps in order (stop intake, finish in-flight work, close
 * connections) and exits; a step that hangs past the deadline makes the process exit 1. Steps
 * given as a function are asked for when the signal comes, within the deadline: a service still
 * waiting for its dependencies has fewer to stop than one that runs.
 */
export function handleShutdown(
  logger: Logger,
  steps: ShutdownStep[] | (() => Promise<ShutdownStep[]>),
  timeoutMs: number,
): () => Promise<void> {
  let running: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    running ??= (async () => {
      const timer = setTimeout(() => {
        logger.error({ timeoutMs }, 'shutdown deadline passed; exiting');
        process.exit(1);
      }, timeoutMs);
      timer.unref();
      const list = typeof steps === 'function' ? await steps() : steps;
      for (const step of list) {
        try {
          await step.run();
          logger.info({ step: step.name }, 'shutdown step done');
        } catch (err) {
          logger.error({ err, step: step.name }, 'shutdown step failed');
        }
      }
      clearTimeout(timer);
    })();
    return running;
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      void shutdown().then(() => process.exit(0));
    });
  }
  return shutdown;
}
