import { GroupCommit, HttpError, type Logger } from '@smsgw/kit';
import { acceptanceDefaults } from '../defaults';
import type { AcceptOutcome, MessageStore, NewMessage } from '../message-store';
import type { JobOutboxRows } from './job-outbox-rows';

export interface AcceptanceGroupCommitOptions {
  /** Most messages one statement accepts (bounds its size and how long it holds the account rows). */
  maxGroupSize?: number;
  /** Told which outbox row each statement wrote; the rows whose jobs are confirmed are deleted by it. */
  outbox?: Pick<JobOutboxRows, 'committed' | 'takeDeletions' | 'deletionFailed'>;
}

/**
 * Group commit of acceptances. Concurrent requests of one account would otherwise queue on its
 * row lock, each paying its own round trip and commit (fsync); here the requests that arrive while
 * one statement is in flight go together in the next, so under load one commit serves many and an
 * idle request still goes at once. The group keeps arrival order, which decides who is charged
 * when credit runs out mid-group (MessageStore.acceptGroup).
 */
export class AcceptanceGroupCommit {
  /** A caller's own failure travels as its result, so it fails that caller only. */
  private readonly groups: GroupCommit<NewMessage, AcceptOutcome | HttpError>;
  private readonly outbox: AcceptanceGroupCommitOptions['outbox'];

  constructor(
    private readonly store: Pick<MessageStore, 'acceptGroup'>,
    private readonly logger: Logger,
    options: AcceptanceGroupCommitOptions = {},
  ) {
    this.outbox = options.outbox;
    this.groups = new GroupCommit((messages) => this.acceptGroup(messages), {
      maxSize: options.maxGroupSize ?? acceptanceDefaults.sendPipeline.maxAcceptGroup,
    });
  }

  /** Resolves once the message is committed (or refused); rejects with a 503 when the database failed it. */
  async accept(message: NewMessage): Promise<AcceptOutcome> {
    const outcome = await this.groups.add(message);
    if (outcome instanceof HttpError) throw outcome;
    return outcome;
  }

  private async acceptGroup(messages: NewMessage[]): Promise<(AcceptOutcome | HttpError)[]> {
    const deletions = this.outbox?.takeDeletions() ?? [];
    try {
      return this.committed(await this.store.acceptGroup(messages, deletions));
    } catch (err) {
      // Rolled back with the statement; they ride the next one.
      this.outbox?.deletionFailed(deletions);
      if (messages.length === 1) return [this.unrecorded(err, messages[0])];
      // One message the database refuses (say, a NUL character) must not fail the others that
      // shared its statement: the statement was rolled back as a whole, so each goes again alone.
      this.logger.warn(
        { err, messages: messages.length },
        'group acceptance failed; accepting its messages one by one',
      );
      return Promise.all(messages.map((m) => this.acceptAlone(m)));
    }
  }

  /** Before any caller hears of its message, so no job can be confirmed before its row is counted. */
  private committed<T extends AcceptOutcome | HttpError>(outcomes: T[]): T[] {
    const jobs = new Map<string, number>();
    for (const o of outcomes)
      if (!(o instanceof HttpError) && o.ok) jobs.set(o.outboxId, (jobs.get(o.outboxId) ?? 0) + 1);
    for (const [outboxId, count] of jobs) this.outbox?.committed(outboxId, count);
    return outcomes;
  }

  private async acceptAlone(message: NewMessage): Promise<AcceptOutcome | HttpError> {
    try {
      const [outcome] = this.committed(await this.store.acceptGroup([message]));
      return outcome;
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
