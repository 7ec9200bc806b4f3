import { timeOrderedId, type Db } from '@smsgw/kit';
import { insertTestAccount, migratedDatabases } from '@smsgw/kit/testing';
import {
  accountCallbackSecrets,
  callbackSecretsOfMessages,
  insertCallbackAttempts,
  markCallbacksDone,
  messageReportFacts,
  rotateCallbackSecret,
  takeDueCallbacks,
  type CallbackAttempt,
} from '@smsgw/store';

const request = (messageId: string, kind: CallbackAttempt['kind'] = 'dlr2') => ({
  message_id: messageId,
  kind,
  url: 'http://127.0.0.1:9/report',
  method: 'POST' as const,
  query: { id: messageId, level: '2' },
  format: 'form' as const,
});

describe.each(migratedDatabases())('callback requests in groups on %s', (_name, open) => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeEach(async () => ({ db, drop } = await open()));
  afterEach(() => drop());

  async function rows(): Promise<{ message_id: string; kind: string; state: string }[]> {
    const { rows } = await db.query<{ message_id: string; kind: string; state: string }>(
      'SELECT message_id, kind, state FROM callback_attempts ORDER BY message_id, kind',
    );
    return rows;
  }

  it('inserts a group in one call, new at most once per message and kind', async () => {
    const [a, b, c] = [timeOrderedId(), timeOrderedId(), timeOrderedId()];
    expect(await insertCallbackAttempts(db, [request(a)])).toEqual([true]);
    // a is there already; b is named twice in the group; c's second kind is its own request.
    expect(
      await insertCallbackAttempts(db, [
        request(a),
        request(b),
        request(b),
        request(c),
        request(c, 'dlr1'),
      ]),
    ).toEqual([false, true, false, true, true]);
    expect(await insertCallbackAttempts(db, [])).toEqual([]);
    // Time-ordered ids: a < b < c.
    expect((await rows()).map((r) => [r.message_id, r.kind, r.state])).toEqual([
      [a, 'dlr2', 'pending'],
      [b, 'dlr2', 'pending'],
      [c, 'dlr1', 'pending'],
      [c, 'dlr2', 'pending'],
    ]);
    const taken = await takeDueCallbacks(db, 10, 60_000);
    expect(taken.find((t) => t.message_id === b)?.query).toEqual({ id: b, level: '2' });
  });

  it('marks a group done in one call, only requests still pending, one attempt each', async () => {
    const [a, b] = [timeOrderedId(), timeOrderedId()];
    await insertCallbackAttempts(db, [request(a), request(b), request(b, 'dlr1')]);
    await markCallbacksDone(db, [
      { message_id: a, kind: 'dlr2', outcome: 'HTTP 200' },
      { message_id: b, kind: 'dlr1', outcome: 'HTTP 204' },
    ]);
    // Done already: a second answer changes nothing.
    await markCallbacksDone(db, [{ message_id: a, kind: 'dlr2', outcome: 'HTTP 500' }]);
    await markCallbacksDone(db, []);
    const { rows: after } = await db.query<{
      message_id: string;
      kind: string;
      state: string;
      attempts: number;
      last_outcome: string | null;
    }>('SELECT message_id, kind, state, attempts, last_outcome FROM callback_attempts');
    const of = (id: string, kind: string) =>
      after.find((r) => r.message_id === id && r.kind === kind);
    expect(of(a, 'dlr2')).toMatchObject({ state: 'done', attempts: 1, last_outcome: 'HTTP 200' });
    expect(of(b, 'dlr1')).toMatchObject({ state: 'done', attempts: 1, last_outcome: 'HTTP 204' });
    expect(of(b, 'dlr2')).toMatchObject({ state: 'pending', attempts: 0, last_outcome: null });
  });

  it("reads the signing secrets of several messages' accounts in one call", async () => {
    const [first, second] = [await insertTestAccount(db), await insertTestAccount(db)];
    await rotateCallbackSecret(db, second, 'b'.repeat(64), 3600);
    const ids = [timeOrderedId(), timeOrderedId(), timeOrderedId()];
    for (const [id, account] of [
      [ids[0], first],
      [ids[1], second],
    ] as const)
      await db.query(
        `INSERT INTO messages (id, account_id, state, to_addr, content, coding, segments, cost) VALUES ($1, $2, 'queued', '41790000001', 'hi', 0, 1, 1)`,
        [id, account],
      );
    const secrets = await callbackSecretsOfMessages(db, ids);
    expect(secrets.get(ids[0])).toEqual(await accountCallbackSecrets(db, first));
    expect(secrets.get(ids[1])).toMatchObject({
      secret: 'b'.repeat(64),
      previous: expect.any(String),
    });
    // No such message: absent, not an error.
    expect(secrets.has(ids[2])).toBe(false);
    expect((await callbackSecretsOfMessages(db, [])).size).toBe(0);
  });

  it("reads several messages' numbers and account names for Kannel's templates in one call", async () => {
    const account = await insertTestAccount(db);
    const { rows } = await db.query<{ username: string }>(
      'SELECT username FROM accounts WHERE id = $1',
      [account],
    );
    const [sent, missing] = [timeOrderedId(), timeOrderedId()];
    await db.query(
      `INSERT INTO messages (id, account_id, state, to_addr, from_addr, content, coding, segments, cost) VALUES ($1, $2, 'queued', '41790000001', 'Shop', 'hi', 0, 1, 1)`,
      [sent, account],
    );
    const facts = await messageReportFacts(db, [sent, missing]);
    expect(facts.get(sent)).toEqual({
      to_addr: '41790000001',
      from_addr: 'Shop',
      username: rows[0]?.username,
    });
    expect(facts.has(missing)).toBe(false);
    expect((await messageReportFacts(db, [])).size).toBe(0);
  });
});
