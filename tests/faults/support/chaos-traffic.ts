import type { PgDb } from '@smsgw/kit';
import { request } from '../../support/http';
import type { Run } from './run-cluster';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What became of the inbound messages the SMSC delivered. */
export interface InboundFigures {
  originated: number;
  /** Answered OK by the gateway: from then on the gateway owns them. */
  answered: number;
  /** Delivered again by the SMSC because the first delivery got no answer in time. */
  redelivered: number;
  /** Answered, yet no row holds them. */
  lost: number;
  /** Recorded more than once. */
  recordedTwice: number;
  webhooksMadeOnce: number;
  webhooksDuplicated: number;
  webhooksGivenUp: number;
  webhooksMissing: number;
}

/**
 * Mixed traffic for the chaos soak until stop(): single sends with both delivery reports, a batch
 * with callbacks every so often, and replies from handsets the SMSC delivers (and, as an SMSC does,
 * delivers again until answered). Every number is used once, so the SMSC's record tells each
 * message apart.
 */
export class ChaosTraffic {
  private running = true;
  private readonly loops: Promise<void>[] = [];
  private readonly unanswered = new Set<number>();
  private readonly answered = new Set<number>();
  private originated = 0;
  private redelivered = 0;
  batches = 0;
  batchRecipients = 0;
  singlesAnswered = 0;

  constructor(
    private readonly run: Run,
    private readonly options: { batchSize: number; batchEveryMs: number },
  ) {}

  start(): void {
    this.loops.push(this.singles(), this.batchLoop(), this.replies());
  }

  private async singles(): Promise<void> {
    const { receiver } = this.run.context;
    for (let i = 0; this.running; i++) {
      const reply = await request(this.run.gateway(), 'POST', '/secure/send', {
        auth: this.run.auth,
        json: {
          to: String(41_790_000_000 + i),
          content: `single ${i}`,
          dlr: 'yes',
          'dlr-url': `${receiver.base}/dlr`,
          'dlr-level': 3,
        },
      }).catch(() => undefined);
      if (reply?.status === 200) this.singlesAnswered++;
      await sleep(250);
    }
  }

  private async batchLoop(): Promise<void> {
    const { receiver } = this.run.context;
    for (let b = 0; this.running; b++) {
      const first = 41_600_000_000 + b * 100_000;
      const recipients = Array.from({ length: this.options.batchSize }, (_, i) =>
        String(first + i),
      );
      const reply = await request(this.run.gateway(), 'POST', '/secure/sendbatch', {
        auth: this.run.auth,
        json: {
          messages: [{ to: recipients, content: `chaos batch ${b}` }],
          batch_config: {
            callback_url: `${receiver.base}/batch-ok`,
            errback_url: `${receiver.base}/batch-error`,
          },
        },
      }).catch(() => undefined);
      if (reply?.status === 200) {
        this.batches++;
        this.batchRecipients += recipients.length;
      }
      for (let waited = 0; this.running && waited < this.options.batchEveryMs; waited += 500)
        await sleep(500);
    }
  }

  /** Delivers reply i; an answer that does not come in time leaves it for delivering again. */
  private async deliver(i: number): Promise<void> {
    const { sim } = this.run.context;
    this.unanswered.add(i);
    await Promise.race([
      sim
        .originate({ from: `4177${String(i).padStart(7, '0')}`, to: '5000', text: `reply ${i}` })
        .then((statuses) => {
          if (statuses.every((s) => s === 0)) {
            this.answered.add(i);
            this.unanswered.delete(i);
          }
        }),
      sleep(5000),
    ]).catch(() => undefined);
  }

  private async replies(): Promise<void> {
    for (let i = 0; this.running; i++) {
      const again = [...this.unanswered];
      this.redelivered += again.length;
      for (const j of again) await this.deliver(j);
      this.originated++;
      await this.deliver(i);
      await sleep(2000);
    }
  }

  /** Ends the traffic; replies still unanswered are delivered again until answered (bounded). */
  async stop(withinMs: number): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    const deadline = Date.now() + withinMs;
    while (this.unanswered.size > 0 && Date.now() < deadline) {
      for (const i of [...this.unanswered]) {
        this.redelivered++;
        await this.deliver(i);
      }
      await sleep(1000);
    }
  }

  /** Each answered reply recorded once and made once at the account's webhook (`/mo`). */
  async inbound(db: PgDb): Promise<InboundFigures> {
    const { rows } = await db.query<{ id: string; content: string | null }>(
      `SELECT id, content FROM inbound_messages`,
    );
    const { rows: given } = await db.query<{ message_id: string }>(
      `SELECT message_id FROM callback_attempts WHERE kind = 'mo' AND state = 'given_up'`,
    );
    const givenUp = new Set(given.map((g) => g.message_id));
    const recorded = new Map<string, string[]>();
    for (const r of rows)
      recorded.set(r.content ?? '', [...(recorded.get(r.content ?? '') ?? []), r.id]);
    // A route's webhook posts JSON (`text`), or a form as Jasmin's (`content`).
    const made = this.run.context.receiver.madeBy('/mo', (call) =>
      call.body.startsWith('{')
        ? String((JSON.parse(call.body) as { text?: unknown }).text)
        : (call.query['text'] ?? call.query['content'] ?? ''),
    );
    const figures: InboundFigures = {
      originated: this.originated,
      answered: this.answered.size,
      redelivered: this.redelivered,
      lost: 0,
      recordedTwice: 0,
      webhooksMadeOnce: 0,
      webhooksDuplicated: 0,
      webhooksGivenUp: 0,
      webhooksMissing: 0,
    };
    for (const i of this.answered) {
      const text = `reply ${i}`;
      const ids = recorded.get(text) ?? [];
      if (ids.length === 0) figures.lost++;
      if (ids.length > 1) figures.recordedTwice++;
      const times = made.get(text) ?? 0;
      if (times === 1) figures.webhooksMadeOnce++;
      else if (times > 1) figures.webhooksDuplicated++;
      else if (ids.some((id) => givenUp.has(id))) figures.webhooksGivenUp++;
      else if (ids.length > 0) figures.webhooksMissing++;
    }
    return figures;
  }
}
