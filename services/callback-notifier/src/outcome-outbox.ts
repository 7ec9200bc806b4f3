import {
  BUS_SCHEMAS,
  TOPICS,
  type MessageDlrEvent,
  type MessageResultEvent,
} from '@smsgw/contracts';
import { GroupCommit, PollingLoop, type Db, type Logger } from '@smsgw/kit';
import { deleteOutcomeRows, takeStaleOutcomeRows } from '@smsgw/store';

type OutboxTopic = typeof TOPICS.messageResult | typeof TOPICS.messageDlr;

export interface OutcomeHandlers {
  result(event: MessageResultEvent): Promise<void>;
  dlr(event: MessageDlrEvent): Promise<void>;
}

export interface OutcomeOutboxOptions {
  /** A row older than this had its event lost (a crash, a broker error): it is handled from here. */
  staleMs: number;
  pollIntervalMs: number;
}

/**
 * The dispatcher writes each outcome event to `outcome_outbox` with the state it reports
 * (migration 005). An event handled from the bus clears its row; rows whose event never came are
 * taken up here, so no callback or delivery report is lost (promise 4). Handling is idempotent
 * (one callback row per message and kind), so an event seen both ways changes nothing twice.
 */
export class OutcomeOutbox {
  private readonly loop: PollingLoop;
  private readonly clears: GroupCommit<{ messageId: string; topic: OutboxTopic }, undefined>;

  constructor(
    private readonly db: Db,
    private readonly handlers: OutcomeHandlers,
    private readonly logger: Logger,
    private readonly options: OutcomeOutboxOptions,
  ) {
    this.loop = new PollingLoop(() => this.sweep(), logger, 'outbox sweep');
    this.clears = new GroupCommit(
      async (rows) => {
        await deleteOutcomeRows(db, rows);
        return rows.map(() => undefined);
      },
      { maxSize: 1000 },
    );
  }

  start(): void {
    this.loop.start(this.options.pollIntervalMs);
  }

  /** The event's callback rows are made: its outbox row has done its job. */
  clear(messageId: string, topic: OutboxTopic): Promise<void> {
    return this.clears.add({ messageId, topic });
  }

  async sweep(): Promise<void> {
    for (let round = 0; round < 100; round++) {
      // Leased (outcome_outbox.lease_until), so another notifier does not take the same rows now.
      const rows = await takeStaleOutcomeRows(this.db, this.options.staleMs);
      if (rows.length === 0) return;
      this.logger.info({ count: rows.length }, 'outcome events taken up from the outbox');
      for (const row of rows) {
        if (row.topic === TOPICS.messageResult)
          await this.handlers.result(BUS_SCHEMAS[TOPICS.messageResult].parse(row.payload));
        else if (row.topic === TOPICS.messageDlr)
          await this.handlers.dlr(BUS_SCHEMAS[TOPICS.messageDlr].parse(row.payload));
        await this.clear(row.message_id, row.topic as OutboxTopic);
      }
    }
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
