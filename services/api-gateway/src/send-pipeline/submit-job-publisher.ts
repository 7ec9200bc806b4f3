import { SUBMIT_GROUP_MAX, TOPICS, submitGroups, toGroupJob } from '@smsgw/contracts';
import { GroupCommit, type Bus } from '@smsgw/kit';

export interface SubmitJob {
  messageId: string;
  accountId: string;
  segments: number;
}

/**
 * Hands accepted messages to the dispatcher. The messages one acceptance statement committed are
 * answered in the same turn, so their jobs are gathered here and published as one group job per
 * account (message.submit-group): one broker message and one confirm for the group instead of one
 * each, which is most of what a job costs the broker, the dispatcher and this process. A message
 * that comes alone still goes as a plain message.submit job.
 */
export class SubmitJobPublisher {
  /** A job's own failure travels as its result, so it fails only the callers of that broker message. */
  private readonly groups: GroupCommit<SubmitJob, Error | undefined>;
  private readonly lingerMs: number;
  /** Jobs waiting out the linger, and how to end it early. */
  private lingering: { jobs: number; end: () => void; ended: Promise<void> } | undefined;
  /** Until when a job that arrives counts as one of a stream (performance.now()). */
  private streamUntil = 0;
  /** Whether the jobs of this turn of the event loop linger: decided by the first of them. */
  private turnLingers: boolean | undefined;

  constructor(
    private readonly bus: Bus,
    options: {
      maxGroupSize?: number;
      concurrency?: number;
      /**
       * How long a job may wait for others to share its broker message (ended early once a full
       * group is waiting). Worth it only when nobody waits for the confirm (MessageIntake): then it
       * delays the message's delivery by at most this, and makes group jobs of many statements.
       * Only jobs of a stream linger (others came less than this before them): a message sent
       * now and then goes at once.
       */
      lingerMs?: number;
    } = {},
  ) {
    this.lingerMs = options.lingerMs ?? 0;
    this.groups = new GroupCommit((jobs) => this.publishAll(jobs), {
      maxSize: options.maxGroupSize ?? 1000,
      // Confirms are pipelined on one channel: groups need not wait for each other's.
      concurrency: options.concurrency ?? 8,
    });
  }

  /** Resolves once the broker confirmed the job; rejects when it could not be published. */
  async publish(job: SubmitJob): Promise<void> {
    if (this.lingerMs > 0 && this.inStream()) await this.linger();
    const failure = await this.groups.add(job);
    if (failure) throw failure;
  }

  /**
   * The jobs one acceptance statement committed arrive in one turn and must share their fate (a
   * group job): the first of the turn decides, by whether jobs came in the last lingerMs before it.
   */
  private inStream(): boolean {
    if (this.lingering) return true;
    if (this.turnLingers === undefined) {
      const now = performance.now();
      this.turnLingers = now < this.streamUntil;
      setImmediate(() => (this.turnLingers = undefined));
    }
    this.streamUntil = performance.now() + this.lingerMs;
    return this.turnLingers;
  }

  /** Resolves for every job waiting together in the same turn, so they join one group. */
  private linger(): Promise<void> {
    if (!this.lingering) {
      let end!: () => void;
      const ended = new Promise<void>((resolve) => (end = resolve));
      const timer = setTimeout(() => this.endLinger(), this.lingerMs);
      this.lingering = { jobs: 0, end: () => (clearTimeout(timer), end()), ended };
    }
    const lingering = this.lingering;
    if (++lingering.jobs >= SUBMIT_GROUP_MAX) this.endLinger();
    return lingering.ended;
  }

  private endLinger(): void {
    const lingering = this.lingering;
    this.lingering = undefined;
    lingering?.end();
  }

  private async publishAll(jobs: SubmitJob[]): Promise<(Error | undefined)[]> {
    const outcome = new Map<SubmitJob, Error | undefined>();
    const sent = submitGroups(jobs).map((group) => {
      const published =
        group.length === 1
          ? this.bus.publish(TOPICS.messageSubmit, group[0])
          : this.bus.publish(TOPICS.messageSubmitGroup, toGroupJob(group));
      return published.then(
        () => undefined,
        (err: unknown) => {
          for (const job of group)
            outcome.set(job, err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
    await Promise.all(sent);
    return jobs.map((job) => outcome.get(job));
  }
}
