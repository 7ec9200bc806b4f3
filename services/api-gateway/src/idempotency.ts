import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Readable } from 'node:stream';
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
      const key = this.keyOf(req);
      if (key === undefined) return next();
      if (key instanceof HttpError) return next(key);
      this.run(req, res, next, accountIdOf(res), key, fingerprint(route, JSON.stringify(req.body)));
    };
  }

  /**
   * The same for a route that reads its body as a stream: with a key, the body is read whole (up to
   * maxBytes) and its bytes are the fingerprint; the route reads them back with idempotentBody.
   */
  rawGuard(
    route: string,
    accountIdOf: (res: Response) => string,
    maxBytes: number,
  ): RequestHandler {
    return (req, res, next) => {
      const key = this.keyOf(req);
      if (key === undefined) return next();
      if (key instanceof HttpError) return next(key);
      readWhole(req, maxBytes).then((body) => {
        res.locals[BODY_LOCAL] = body;
        this.run(req, res, next, accountIdOf(res), key, fingerprint(route, body));
      }, next);
    };
  }

  private keyOf(req: Request): string | HttpError | undefined {
    const header = req.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
    if (header === undefined) return undefined;
    const parsed = IdempotencyKeySchema.safeParse(header);
    if (parsed.success) return parsed.data;
    return HttpError.invalid(
      IDEMPOTENCY_KEY_HEADER,
      parsed.error.issues[0]?.message ?? 'not a valid key',
    );
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

const BODY_LOCAL = 'idempotentBody';

function fingerprint(route: string, body: string | Buffer): string {
  return createHash('sha256').update(`${route}\n`).update(body).digest('hex');
}

/** The request body as sent, refused with 413 past maxBytes. */
async function readWhole(req: Request, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes)
      throw new HttpError('PAYLOAD_TOO_LARGE', `The request is larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The body rawGuard read for this request, as a stream to read again; undefined without a key. */
export function idempotentBody(res: Response): Readable | undefined {
  const body: unknown = res.locals[BODY_LOCAL];
  return Buffer.isBuffer(body) ? Readable.from([body]) : undefined;
}
