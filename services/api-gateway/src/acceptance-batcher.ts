import { GroupCommit, HttpError, type Logger } from '@smsgw/kit';
import type { AcceptOutcome, MessageStore, NewMessage } from './message-store';
import type { QueuedMarks } from './queued-marker';

export interface AcceptanceBatcherOptions {
  /** Most messages one statement accepts (bounds its size and how long it holds the account rows). */
  maxGroupSize?: number;
  /** Confirmed messages to mark queued in each acceptance statement. */
  queuedMarks?: QueuedMarks;
}

/**
 * Group commit of acceptances. Concurrent requests of one account would otherwise queue on its
 * row lock, each paying its own round trip and commit (fsync); here the requests that arrive while
 * one statement is in flight go together in the next, so under load one commit serves many and an
 * idle request still goes at once. The group keeps arrival order, which decides who is charged
 * when credit runs out mid-group (MessageStore.acceptGroup).
 */
export class AcceptanceBatcher {
  /** A caller's own failure travels as its result, so it fails that caller only. */
  private readonly groups: GroupCommit<NewMessage, AcceptOutcome | HttpError>;
  private readonly queuedMarks: QueuedMarks | undefined;

  constructor(
    private readonly store: MessageStore,
    private readonly logger: Logger,
    options: AcceptanceBatcherOptions = {},
  ) {
    this.queuedMarks = options.queuedMarks;
    this.groups = new GroupCommit((messages) => this.acceptGroup(messages), { maxSize: options.maxGroupSize ?? 256 });
  }

  /** Resolves once the message is committed (or refused); rejects with a 503 when the database failed it. */
  async accept(message: NewMessage): Promise<AcceptOutcome> {
    const outcome = await this.groups.add(message);
    if (outcome instanceof HttpError) throw outcome;
    return outcome;
  }

  /** Messages waiting for or inside a statement. */
  get pending(): number {
    return this.groups.size;
  }

  private async acceptGroup(messages: NewMessage[]): Promise<(AcceptOutcome | HttpError)[]> {
    const marks = this.queuedMarks?.take() ?? [];
    try {
      return await this.store.acceptGroup(messages, marks);
    } catch (err) {
      // Rolled back with the statement; they ride the next one.
      for (const id of marks) this.queuedMarks?.mark(id);
      if (messages.length === 1) return [this.unrecorded(err, messages[0]!)];
      // One message the database refuses (say, a NUL character) must not fail the others that
      // shared its statement: the statement was rolled back as a whole, so each goes again alone.
      this.logger.warn({ err, messages: messages.length }, 'group acceptance failed; accepting its messages one by one');
      return Promise.all(messages.map((m) => this.acceptAlone(m)));
    }
  }

  private async acceptAlone(message: NewMessage): Promise<AcceptOutcome | HttpError> {
    try {
      const [outcome] = await this.store.acceptGroup([message]);
      return outcome!;
    } catch (err) {
      return this.unrecorded(err, message);
    }
  }

  /** The statement was rolled back: nothing was charged or recorded for this message. */
  private unrecorded(err: unknown, message: NewMessage): HttpError {
    this.logger.error({ err, messageId: message.id }, 'could not record the message');
    return new HttpError('SERVICE_UNAVAILABLE', 'The message could not be recorded; try again');
  }
}
