/** /readyz must answer quickly: a database that takes longer than this is reported as not ready. */
export const PING_TIMEOUT_MS = 2000;

/** Rejects when `promise` has not settled within `ms` (the operation itself is not cancelled). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
