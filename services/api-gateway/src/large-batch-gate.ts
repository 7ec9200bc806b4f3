import { HttpError } from '@smsgw/kit';

/**
 * At most one large batch per account in reading and validation at a time (in this gateway
 * process): a customer who sends several at once waits for the one before, instead of taking
 * the event loop from the others.
 */
export class LargeBatchGate {
  private readonly busy = new Set<string>();

  constructor(private readonly retryAfterSeconds = 1) {}

  /** The release to call once the batch is accepted or refused; throws 429 while one is in. */
  enter(accountId: string): () => void {
    if (this.busy.has(accountId))
      throw new HttpError(
        'RATE_LIMITED',
        'Another large batch of this account is still being read; send the next one after it',
        { headers: { 'Retry-After': String(this.retryAfterSeconds) } },
      );
    this.busy.add(accountId);
    return () => this.busy.delete(accountId);
  }
}
