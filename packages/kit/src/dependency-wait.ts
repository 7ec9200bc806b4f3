import type { Logger } from './logger';

/** How a process waits for a dependency that does not answer yet (Postgres, RabbitMQ, Redis). */
export interface RetryPolicy {
  /** Delay before the second attempt; each later one doubles it. */
  initialDelayMs: number;
  /** Upper bound of the delay, before jitter. */
  maxDelayMs: number;
}

/** Thrown by waitForDependency when the wait is abandoned (the process is shutting down). */
export class StartupAbortedError extends Error {
  override name = 'StartupAbortedError';
}

/**
 * Delay before attempt `attempt + 1`: exponential, capped, with jitter over its upper half, so
 * replicas that lost the same dependency at the same moment do not come back in step.
 */
export function retryDelay(
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.min(attempt, 30));
  return Math.round(base / 2 + random() * (base / 2));
}

/** A connection error can be an AggregateError with an empty message (one per resolved address). */
export function errorText(err: unknown): string {
  if (err instanceof AggregateError && err.message === '')
    return err.errors.map(errorText).join('; ');
  if (err instanceof Error) return err.message || (err as { code?: string }).code || err.name;
  return String(err);
}

/**
 * SQLSTATE classes of a server that cannot serve now but may soon: connection exceptions,
 * insufficient resources, operator intervention (starting up, shutting down), system errors, and
 * transaction rollbacks (deadlock, serialization).
 */
const TRANSIENT_SQLSTATE_CLASSES = new Set(['08', '40', '53', '57', '58']);

/**
 * Whether retrying cannot help: Postgres itself refused a statement for what it says (a migration
 * whose SQL fails). Everything else while connecting (refused, reset, unresolvable host, a broker
 * closing the handshake, a server starting up, even a refused login that an operator may fix) is
 * waited out, because the dependency may come back.
 */
export function isPermanentStartupError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; depth++) {
    const { code, severity } = e as { code?: unknown; severity?: unknown };
    if (typeof severity === 'string' && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
      const sqlClass = code.slice(0, 2);
      // A login or a database name is configuration that an operator may still be fixing.
      if (sqlClass === '28' || sqlClass === '3D') return false;
      return !TRANSIENT_SQLSTATE_CLASSES.has(sqlClass);
    }
    e = e.cause;
  }
  return false;
}

export interface DependencyWaitOptions {
  logger: Logger;
  policy: RetryPolicy;
  /** Aborting stops the wait: the pending attempt's value is discarded and the wait rejects. */
  signal?: AbortSignal | undefined;
  /** Releases what an attempt opened after the wait was abandoned (a connection). */
  discard?: (value: never) => Promise<void> | void;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new StartupAbortedError('startup abandoned'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new StartupAbortedError('startup abandoned'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds: after each failure one warning with the dependency, the
 * attempt's number, its cause and the next delay, then a capped, jittered back-off. Rejects only
 * for an error retrying cannot cure (isPermanentStartupError) or when `signal` aborts.
 */
export async function waitForDependency<T>(
  dependency: string,
  attempt: () => Promise<T>,
  options: DependencyWaitOptions,
): Promise<T> {
  const { logger, policy, signal } = options;
  for (let n = 1; ; n++) {
    if (signal?.aborted) throw new StartupAbortedError('startup abandoned');
    try {
      const value = await attempt();
      if (signal?.aborted) {
        await (options.discard as ((value: T) => Promise<void> | void) | undefined)?.(value);
        throw new StartupAbortedError('startup abandoned');
      }
      if (n > 1) logger.info({ dependency, attempts: n }, `${dependency} is available`);
      return value;
    } catch (err) {
      if (err instanceof StartupAbortedError || isPermanentStartupError(err)) throw err;
      const delayMs = retryDelay(n - 1, policy);
      logger.warn(
        { dependency, attempt: n, cause: errorText(err), retryInMs: delayMs },
        `${dependency} unavailable (attempt ${n}): ${errorText(err)}; retrying in ${delayMs} ms`,
      );
      await pause(delayMs, signal);
    }
  }
}
