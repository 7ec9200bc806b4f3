import pino from 'pino';
import { Writable } from 'node:stream';
import {
  StartupAbortedError,
  isPermanentStartupError,
  retryDelay,
  waitForDependency,
} from '../src/dependency-wait';

/** A logger whose lines the test reads. */
function recordingLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

/** What node-postgres rejects with when the server refuses a statement. */
function serverError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: 'ERROR' });
}

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('retryDelay', () => {
  const policy = { initialDelayMs: 100, maxDelayMs: 1000 };

  it('doubles from the initial delay up to the cap, jittered over the upper half', () => {
    expect([0, 1, 2, 3, 4, 10].map((n) => retryDelay(n, policy, () => 1))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect([0, 1, 2, 3, 4, 10].map((n) => retryDelay(n, policy, () => 0))).toEqual([
      50, 100, 200, 400, 500, 500,
    ]);
  });

  it('stays within the cap however many attempts failed', () => {
    for (const attempt of [50, 1000, Number.MAX_SAFE_INTEGER])
      expect(retryDelay(attempt, policy)).toBeLessThanOrEqual(1000);
  });
});

describe('isPermanentStartupError', () => {
  it('waits out what may come back: refused, reset, unresolvable, starting up, a refused login', () => {
    for (const err of [
      refused(),
      new AggregateError([refused()], ''),
      Object.assign(new Error('getaddrinfo ENOTFOUND postgres'), { code: 'ENOTFOUND' }),
      new Error('Connection terminated unexpectedly'),
      new Error('Socket closed abruptly during opening handshake'),
      serverError('57P03', 'the database system is starting up'),
      serverError('53300', 'sorry, too many clients already'),
      serverError('28P01', 'password authentication failed for user "smsgw"'),
      serverError('3D000', 'database "smsgw" does not exist'),
      new Error('migration 042.sql failed: terminating connection', {
        cause: serverError('57P01', 'terminating connection due to administrator command'),
      }),
    ])
      expect([err.message, isPermanentStartupError(err)]).toEqual([err.message, false]);
  });

  it('gives up on a migration whose SQL Postgres refuses', () => {
    const err = new Error('migration 042.sql failed: syntax error', {
      cause: serverError('42601', 'syntax error at or near "CREAT"'),
    });
    expect(isPermanentStartupError(err)).toBe(true);
  });
});

describe('waitForDependency', () => {
  const policy = { initialDelayMs: 10, maxDelayMs: 20 };

  it('retries until the dependency answers, one warning per failed attempt with its cause', async () => {
    const { logger, lines } = recordingLogger();
    let calls = 0;
    const value = await waitForDependency(
      'Postgres',
      () => {
        calls += 1;
        return calls < 4 ? Promise.reject(refused()) : Promise.resolve('up');
      },
      { logger, policy },
    );
    expect(value).toBe('up');
    const warnings = lines.filter((l) => l['level'] === 40);
    expect(warnings.map((l) => [l['dependency'], l['attempt'], l['cause']])).toEqual([
      ['Postgres', 1, 'connect ECONNREFUSED 127.0.0.1:5432'],
      ['Postgres', 2, 'connect ECONNREFUSED 127.0.0.1:5432'],
      ['Postgres', 3, 'connect ECONNREFUSED 127.0.0.1:5432'],
    ]);
    for (const warning of warnings) {
      expect(warning['retryInMs']).toBeLessThanOrEqual(20);
      expect(warning['msg']).toMatch(/^Postgres unavailable \(attempt \d\): connect ECONNREFUSED/);
    }
    expect(lines.at(-1)).toMatchObject({ dependency: 'Postgres', attempts: 4 });
  });

  it('rejects at once for an error retrying cannot cure', async () => {
    const { logger } = recordingLogger();
    const err = new Error('migration 042.sql failed', { cause: serverError('42P01', 'no table') });
    let calls = 0;
    await expect(
      waitForDependency(
        'Postgres',
        () => {
          calls += 1;
          return Promise.reject(err);
        },
        { logger, policy },
      ),
    ).rejects.toBe(err);
    expect(calls).toBe(1);
  });

  it('stops waiting when aborted, and releases what an attempt opened after the abort', async () => {
    const { logger } = recordingLogger();
    const controller = new AbortController();
    const waiting = waitForDependency('RabbitMQ', () => Promise.reject(refused()), {
      logger,
      policy: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
      signal: controller.signal,
    });
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(StartupAbortedError);

    const late = new AbortController();
    const released: string[] = [];
    const opening = waitForDependency(
      'RabbitMQ',
      () => {
        late.abort();
        return Promise.resolve('connection');
      },
      {
        logger,
        policy,
        signal: late.signal,
        discard: (value: string) => void released.push(value),
      },
    );
    await expect(opening).rejects.toBeInstanceOf(StartupAbortedError);
    expect(released).toEqual(['connection']);
  });
});
