/** What a check answers: false or undefined while the awaited thing has not happened. */
type Pending<T> = T | false | undefined;

/**
 * Polls `check` until it answers something other than false or undefined, and returns that. Fails
 * naming `what` after `timeoutMs`, so no wait can hang a test run or a benchmark.
 */
export async function waitFor<T>(
  check: () => Pending<T> | Promise<Pending<T>>,
  timeoutMs = 10_000,
  what = 'condition',
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
