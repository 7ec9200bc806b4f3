import type { MessageEntry, SendRequest } from '@smsgw/contracts';
import type { RouteDecision } from '@smsgw/routing';
import { HttpError, timeOrderedId, type Bus, type Logger, type ShutdownStep } from '@smsgw/kit';
import { acceptanceDefaults } from '../defaults';
import type { MessageStore } from '../message-store';
import { planMessage } from '../message-plan';
import { AcceptanceGroupCommit } from './acceptance-group-commit';
import { JobOutboxRows } from './job-outbox-rows';
import { newMessage } from './new-message';
import { SubmitJobPublisher, type SubmitJob } from './submit-job-publisher';
import { UnconfirmedJobs } from './unconfirmed-jobs';

export interface AcceptedMessage {
  id: string;
  cost: string;
  segments: number;
}

/** Publishes one accepted message's job; resolves at the broker's confirm, rejects on failure. */
export interface JobPublisher {
  publish(job: SubmitJob): Promise<void>;
}

export interface SendPipelineOptions {
  maxParts: number;
  /** Called once per message charged and recorded (the accepted-messages metric). */
  onAccepted?: () => void;
  maxUnconfirmedJobs?: number;
  outboxIdleFlushMs?: number;
}

/**
 * A single send from request to the dispatcher's queue: accept → outbox → publish → confirm.
 *
 * 1. Accept. The message joins the acceptance group commit (AcceptanceGroupCommit): requests that
 *    arrive while a statement is in flight go together in the next, in groups of at most
 *    `maxAcceptGroup`. That one statement charges each message, writes it `queued` and writes one
 *    job_outbox row naming the group's messages.
 * 2. Answer. The caller is answered as soon as the statement commits: from then on its job is
 *    either confirmed by the broker or re-published by the dispatcher's sweep from the outbox row.
 *    Only when more than `maxUnconfirmedJobs` wait for the broker does a caller wait for its own.
 * 3. Publish. SubmitJobPublisher gathers the jobs of one turn into one group job per account. The
 *    first job of a turn decides whether the turn belongs to a stream (StreamLinger); the jobs of
 *    a stream wait up to `submitLingerMs` so that several statements share one broker message. Up
 *    to `publishConcurrency` publishing rounds of at most `maxPublishGroup` jobs run at once, and
 *    the bus writes what one turn published in one corked socket write.
 * 4. Confirm. Each confirm is counted against its outbox row (JobOutboxRows); after the row's last
 *    the row is deleted, riding along with the next acceptance statement, or alone after
 *    `outboxIdleFlushMs` when none comes. A failed publish leaves the row for the sweep.
 *
 * The timings and sizes are `acceptanceDefaults.sendPipeline` (defaults.ts), each with its reason.
 */
export class SendPipeline {
  private readonly outbox: JobOutboxRows;
  private readonly acceptances: AcceptanceGroupCommit;
  private readonly unconfirmed: UnconfirmedJobs;
  private readonly onAccepted: () => void;

  constructor(
    store: Pick<MessageStore, 'acceptGroup' | 'deleteOutboxRows'>,
    private readonly jobs: JobPublisher,
    private readonly logger: Logger,
    private readonly options: SendPipelineOptions,
  ) {
    const defaults = acceptanceDefaults.sendPipeline;
    this.outbox = new JobOutboxRows(
      store,
      logger,
      options.outboxIdleFlushMs ?? defaults.outboxIdleFlushMs,
    );
    this.acceptances = new AcceptanceGroupCommit(store, logger, { outbox: this.outbox });
    this.unconfirmed = new UnconfirmedJobs(
      options.maxUnconfirmedJobs ?? defaults.maxUnconfirmedJobs,
    );
    this.onAccepted = options.onAccepted ?? (() => undefined);
  }

  /** The pipeline as the gateway runs it: jobs of a stream linger to share broker messages. */
  static onBus(
    store: MessageStore,
    bus: Bus,
    logger: Logger,
    options: SendPipelineOptions,
  ): SendPipeline {
    const jobs = new SubmitJobPublisher(bus, {
      lingerMs: acceptanceDefaults.sendPipeline.submitLingerMs,
    });
    return new SendPipeline(store, jobs, logger, options);
  }

  /**
   * Plans, charges and records one message, and starts its job on the way to the dispatcher
   * through the first connector of its route. `id` is a new one unless the caller chose it.
   */
  async accept(
    accountId: string,
    request: SendRequest,
    routing: RouteDecision,
    origin: { entry: MessageEntry; id?: string | undefined },
  ): Promise<AcceptedMessage> {
    const id = origin.id ?? timeOrderedId();
    const plan = planMessage(request, this.options.maxParts);
    const outcome = await this.acceptances.accept(
      newMessage(id, accountId, request, plan, routing, origin.entry),
    );
    if (!outcome.ok) {
      throw new HttpError(
        outcome.reason,
        outcome.reason === 'INSUFFICIENT_CREDIT'
          ? 'Not enough credit for this message'
          : 'Message quota exhausted',
      );
    }
    this.onAccepted();
    const job = {
      messageId: id,
      accountId,
      segments: plan.segments,
      connector: routing.connectors[0],
    };
    const settled = this.jobs.publish(job).then(
      () => this.outbox.jobConfirmed(outcome.outboxId),
      (err: unknown) => {
        // Committed already: the dispatcher's sweep re-publishes the jobs of the outbox row.
        this.outbox.jobFailed(outcome.outboxId);
        this.logger.warn({ err, messageId: id }, 'publish failed; the sweep will re-publish');
      },
    );
    this.unconfirmed.add(settled);
    if (this.unconfirmed.overLimit) await settled;
    return { id, cost: outcome.cost, segments: plan.segments };
  }

  /** Jobs published and not yet confirmed (or failed). */
  get unconfirmedJobs(): number {
    return this.unconfirmed.size;
  }

  /** Waits for the broker's answer to every job published so far (on shutdown, before the bus closes). */
  waitForConfirms(): Promise<void> {
    return this.unconfirmed.settled();
  }

  /** Deletes the outbox rows of confirmed jobs now (on shutdown, before the database closes). */
  flushOutboxDeletions(): Promise<void> {
    return this.outbox.flushDeletions();
  }

  /** After the HTTP server stopped taking requests: confirms first, then the deletions they cause. */
  get stopSteps(): ShutdownStep[] {
    return [
      { name: 'unconfirmed jobs', run: () => this.waitForConfirms() },
      { name: 'job outbox', run: () => this.flushOutboxDeletions() },
    ];
  }
}
