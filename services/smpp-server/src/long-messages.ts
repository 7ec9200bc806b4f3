import type { Principal } from '@smsgw/contracts';
import { HttpError } from '@smsgw/kit';
import type { SubmitPart } from './submit-request';

interface Pending {
  owner: Principal;
  first: SubmitPart;
  parts: (Buffer | undefined)[];
  received: number;
  waiters: { resolve: (id: string) => void; reject: (err: unknown) => void }[];
  timer: NodeJS.Timeout;
}

/**
 * The parts of a message the customer concatenated itself (UDH or SAR TLVs), gathered until the
 * last arrives and then accepted as one message: charged once at its route's price, and cut
 * again by the gateway's encoder on the way out, in parts of the same size. Every part's
 * submit_sm_resp waits for that acceptance and carries the message's id, so no part is answered
 * before the message is durably accepted. A message whose parts do not all arrive within
 * `timeoutMs` is refused, each part it had.
 */
export class LongMessages {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly timeoutMs: number,
    private readonly accept: (owner: Principal, first: SubmitPart, body: Buffer) => Promise<string>,
  ) {}

  /** Parts waiting for the rest of their message. */
  get waiting(): number {
    let count = 0;
    for (const p of this.pending.values()) count += p.received;
    return count;
  }

  add(owner: Principal, part: SubmitPart): Promise<string> {
    const c = part.concatenation;
    if (!c) throw new Error('not a part of a long message');
    if (c.seq > c.total)
      return Promise.reject(HttpError.invalid('content', `part ${c.seq} of ${c.total}`));
    const key = `${owner.accountId} ${part.to} ${part.from ?? ''} ${c.ref} ${c.total}`;
    let pending = this.pending.get(key);
    if (!pending) {
      const created: Pending = {
        owner,
        first: part,
        parts: new Array<Buffer | undefined>(c.total),
        received: 0,
        waiters: [],
        timer: setTimeout(() => {
          this.pending.delete(key);
          const err = HttpError.invalid(
            'content',
            `only ${created.received} of the ${c.total} parts arrived`,
          );
          for (const w of created.waiters) w.reject(err);
        }, this.timeoutMs),
      };
      created.timer.unref();
      this.pending.set(key, created);
      pending = created;
    }
    const entry = pending;
    if (entry.parts[c.seq - 1] !== undefined)
      return Promise.reject(HttpError.invalid('content', `part ${c.seq} arrived twice`));
    entry.parts[c.seq - 1] = part.body;
    entry.received += 1;
    if (c.seq === 1) entry.first = part;
    const answer = new Promise<string>((resolve, reject) =>
      entry.waiters.push({ resolve, reject }),
    );
    if (entry.received === c.total) {
      clearTimeout(entry.timer);
      this.pending.delete(key);
      this.accept(entry.owner, entry.first, Buffer.concat(entry.parts as Buffer[])).then(
        (id) => entry.waiters.forEach((w) => w.resolve(id)),
        (err: unknown) => entry.waiters.forEach((w) => w.reject(err)),
      );
    }
    return answer;
  }

  /** On shutdown: parts still waiting are refused (their customer sends them again elsewhere). */
  clear(): void {
    for (const entry of this.pending.values()) {
      clearTimeout(entry.timer);
      const err = new HttpError('SERVICE_UNAVAILABLE', 'the server is stopping');
      for (const w of entry.waiters) w.reject(err);
    }
    this.pending.clear();
  }
}
