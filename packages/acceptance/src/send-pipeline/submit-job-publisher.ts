import { TOPICS, submitGroups, toGroupJob } from '@smsgw/contracts';
import { GroupCommit, type Bus } from '@smsgw/kit';
import { acceptanceDefaults } from '../defaults';
import { StreamLinger } from './stream-linger';

export interface SubmitJob {
  messageId: string;
  accountId: string;
  segments: number;
  /** The connector whose queue takes the job (the first of the message's route). */
  connector: string;
}

export interface SubmitJobPublisherOptions {
  maxGroupSize?: number;
  concurrency?: number;
  /**
   * How long a job of a stream may wait for others to share its broker message (StreamLinger);
   * 0, the default, publishes each job at once. Worth it only when nobody waits for the confirm.
   */
  lingerMs?: number;
}

/**
 * Hands accepted messages to the dispatcher. The messages one acceptance statement committed are
 * answered in the same turn, so their jobs are gathered here and published as one group job per
 * connector and account (message.submit-group, keyed by the connector): one broker message and one
 * confirm for the group instead of one each, which is most of what a job costs the broker, the
 * dispatcher and this process. A message that comes alone still goes as a plain message.submit job.
 */
export class SubmitJobPublisher {
  /** A job's own failure travels as its result, so it fails only the callers of that broker message. */
  private readonly groups: GroupCommit<SubmitJob, Error | undefined>;
  private readonly linger: StreamLinger | undefined;

  constructor(
    private readonly bus: Pick<Bus, 'publish'>,
    options: SubmitJobPublisherOptions = {},
  ) {
    const lingerMs = options.lingerMs ?? 0;
    this.linger = lingerMs > 0 ? new StreamLinger(lingerMs) : undefined;
    this.groups = new GroupCommit((jobs) => this.publishGroups(jobs), {
      maxSize: options.maxGroupSize ?? acceptanceDefaults.sendPipeline.maxPublishGroup,
      concurrency: options.concurrency ?? acceptanceDefaults.sendPipeline.publishConcurrency,
    });
  }

  /** Resolves once the broker confirmed the job; rejects when it could not be published. */
  async publish(job: SubmitJob): Promise<void> {
    if (this.linger?.joinsStream()) await this.linger.wait();
    const failure = await this.groups.add(job);
    if (failure) throw failure;
  }

  private async publishGroups(jobs: SubmitJob[]): Promise<(Error | undefined)[]> {
    const outcome = new Map<SubmitJob, Error | undefined>();
    const sent = submitGroups(jobs).map((group) => {
      const { connector, ...first } = group[0];
      const published =
        group.length === 1
          ? this.bus.publish(TOPICS.messageSubmit, first, connector)
          : this.bus.publish(TOPICS.messageSubmitGroup, toGroupJob(group), connector);
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
