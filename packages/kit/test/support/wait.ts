/** Bounded waits for tests: nothing here can hang a run. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
