import { createHash, type Hash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  IdempotencyKeySchema,
} from '@smsgw/contracts';
import { HttpError, type Db, type Logger } from '@smsgw/kit';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  findIdempotencyKey,
  releaseIdempotencyKey,
  type IdempotencyRow,
} from '@smsgw/store';

export interface IdempotencyOptions {
  /** How long a key's answer is kept and replayed. */
  windowSeconds: number;
  /** How long a request waits for the answer of the first request with its key. */
  waitMs: number;
  /** The first pause before a waiting request looks again for an answer another gateway runs. */
  pollMs: number;
}

/** The longest pause between two looks at a key held by another gateway. */
const MAX_POLL_MS = 500;

/** What a request with a key does: run (it holds the key), or answer with the first answer. */
type Outcome = { run: true } | { run: false; answer: IdempotencyRow & { status: number } };

/**
 * Idempotency-Key on the sending routes. The first request with a key (per account) claims it with
 * a row whose primary key decides a race, in every gateway at once; it runs, and its answer is kept
 * before it goes out. A later request with the same key and body waits for that answer and gets it
 * again, status and body, without running; with another body it is a 409. An answer with a 5xx
 * status frees the key, as the request was not carried out.
 */
export class IdempotentRequests {
  /** Requests of this gateway that hold a key, so a waiter here wakes as soon as they answer. */
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly options: IdempotencyOptions,
  ) {}

  /** The middleware for one route; after authentication and the body parser. */
  guard(route: string, accountIdOf: (res: Response) => string): RequestHandler {
    return (req, res, next) => {
      let key: string | undefined;
      try {
        key = this.keyOf(req);
      } catch (err) {
        next(err);
        return;
      }
      if (key === undefined) return next();
      const print = fingerprintOf(route).update(JSON.stringify(req.body)).digest('hex');
      this.run(req, res, next, accountIdOf(res), key, print);
    };
  }

  /** The request's key; undefined without one, a 400 when it is not a valid key. */
  keyOf(req: Request): string | undefined {
    const header = req.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
    if (header === undefined) return undefined;
    const parsed = IdempotencyKeySchema.safeParse(header);
    if (parsed.success) return parsed.data;
    throw HttpError.invalid(
      IDEMPOTENCY_KEY_HEADER,
      parsed.error.issues[0]?.message ?? 'not a valid key',
    );
  }

  /** Whether a request already took this key (answered, or still running). */
  async taken(accountId: string, key: string): Promise<boolean> {
    return (await findIdempotencyKey(this.db, accountId, key)) !== undefined;
  }

  /**
   * For a route that reads its body itself, once read: true when this request runs (its answer is
   * kept for the key), false when it has been answered with the first request's answer.
   */
  async begin(res: Response, accountId: string, key: string, print: string): Promise<boolean> {
    const outcome = await this.settle(accountId, key, print);
    if (!outcome.run) {
      replay(res, outcome.answer);
      return false;
    }
    this.keepAnswer(res, accountId, key);
    return true;
  }

  private run(
    _req: Request,
    res: Response,
    next: NextFunction,
    accountId: string,
    key: string,
    print: string,
  ): void {
    this.settle(accountId, key, print).then((outcome) => {
      if (outcome.run) {
        this.keepAnswer(res, accountId, key);
        next();
      } else replay(res, outcome.answer);
    }, next);
  }

  private async settle(accountId: string, key: string, fingerprint: string): Promise<Outcome> {
    const claim = { accountId, key, fingerprint, windowSeconds: this.options.windowSeconds };
    const id = `${accountId}\n${key}`;
    const deadline = Date.now() + this.options.waitMs;
    let pause = this.options.pollMs;
    // Bounded in count as well as in time; each round waits, so the count is never what ends it.
    for (let round = 0; round < 10_000 && Date.now() < deadline; round++) {
      // Held by a request of this gateway: its answer wakes us, no need to ask the database.
      const here = this.running.get(id);
      if (here) await Promise.race([here, sleep(Math.max(0, deadline - Date.now()))]);
      if (await claimIdempotencyKey(this.db, claim)) return { run: true };
      const row = await findIdempotencyKey(this.db, accountId, key);
      // Freed (a 5xx) or expired between the claim and the look: claim again.
      if (!row) continue;
      if (row.fingerprint !== fingerprint)
        throw new HttpError(
          'IDEMPOTENCY_KEY_REUSED',
          `${IDEMPOTENCY_KEY_HEADER} ${key} was already used with another request; use a new key for a new request`,
          { field: IDEMPOTENCY_KEY_HEADER },
        );
      if (row.status !== null) return { run: false, answer: { ...row, status: row.status } };
      if (!this.running.has(id)) {
        // Held by another gateway: look again, less often the longer it takes.
        await sleep(pause);
        pause = Math.min(pause * 2, MAX_POLL_MS);
      }
    }
    throw new HttpError(
      'IDEMPOTENCY_KEY_IN_PROGRESS',
      `The first request with ${IDEMPOTENCY_KEY_HEADER} ${key} is still running; retry later with the same key`,
      { field: IDEMPOTENCY_KEY_HEADER },
    );
  }

  /**
   * Keeps the answer the route writes, before it goes out: a client that has seen an answer gets
   * the same one on its retry. res.end is where every answer passes (res.json, writeHead + end,
   * and the error handler).
   */
  private keepAnswer(res: Response, accountId: string, key: string): void {
    const id = `${accountId}\n${key}`;
    let answered!: () => void;
    this.running.set(
      id,
      new Promise<void>((resolve) => {
        answered = resolve;
      }),
    );
    const finish = () => {
      if (this.running.get(id) !== undefined) {
        this.running.delete(id);
        answered();
      }
    };
    res.once('close', finish);
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      const [chunk] = args;
      const status = res.statusCode;
      const response =
        typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
      const contentType = res.getHeader('content-type');
      const kept =
        status >= 500
          ? releaseIdempotencyKey(this.db, accountId, key)
          : completeIdempotencyKey(this.db, accountId, key, {
              status,
              contentType: typeof contentType === 'string' ? contentType : null,
              response,
            });
      kept
        .catch((err: unknown) =>
          // The key stays claimed without an answer: a retry gets IDEMPOTENCY_KEY_IN_PROGRESS
          // until the key expires, never a second send.
          this.logger.error({ err, status }, 'could not keep the answer of an idempotent request'),
        )
        .finally(() => {
          end(...args);
          finish();
        });
      return res;
    }) as Response['end'];
  }
}

function replay(res: Response, answer: IdempotencyRow & { status: number }): void {
  const body = answer.response ?? '';
  res
    .writeHead(answer.status, {
      'content-type': answer.content_type ?? 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      [IDEMPOTENT_REPLAYED_HEADER.toLowerCase()]: 'true',
    })
    .end(body);
}

/** A request's fingerprint: the route, then its body (as sent, or as parsed for a JSON route). */
export function fingerprintOf(route: string): Hash {
  return createHash('sha256').update(`${route}\n`);
}
