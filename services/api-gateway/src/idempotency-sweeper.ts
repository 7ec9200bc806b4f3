import { PollingLoop, type Db, type Logger } from '@smsgw/kit';
import { deleteExpiredIdempotencyKeys } from '@smsgw/store';

const ROWS_PER_STATEMENT = 1000;
const STATEMENTS_PER_ROUND = 100;

/**
 * Deletes expired Idempotency-Key rows. An expired row is already free (a new claim takes it
 * over); deleting it keeps the table to the keys of one window. Every gateway sweeps; two at once
 * only delete fewer rows each.
 */
export class IdempotencySweeper {
  private readonly loop: PollingLoop;

  constructor(
    private readonly db: Db,
    logger: Logger,
  ) {
    this.loop = new PollingLoop(
      async () => {
        await this.sweep();
      },
      logger,
      'idempotency key sweep',
    );
  }

  start(intervalMs: number): void {
    this.loop.start(intervalMs);
  }

  async sweep(): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < STATEMENTS_PER_ROUND && !this.loop.isStopped; i++) {
      const n = await deleteExpiredIdempotencyKeys(this.db, ROWS_PER_STATEMENT);
      deleted += n;
      if (n < ROWS_PER_STATEMENT) break;
    }
    return deleted;
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
