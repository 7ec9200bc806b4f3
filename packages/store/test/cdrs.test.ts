import { timeIdFloor, timeOrderedId } from '@smsgw/kit';
import { migratedDatabases, useMigratedAccount } from '@smsgw/kit/testing';
import {
  addMessagePartition,
  deleteCdrsBefore,
  dropMessagePartition,
  readCdrs,
  refundedAmount,
  type CdrRow,
} from '../src';

const DAY = new Date('2026-01-10T00:00:00Z');
const NEXT_DAY = new Date('2026-01-11T00:00:00Z');
const at = (hour: number, minute = 0) =>
  new Date(DAY.getTime() + hour * 3_600_000 + minute * 60_000);

interface Message {
  at: Date;
  state: string;
  cost?: string;
  segments?: number;
  to?: string;
  from?: string | null;
  account?: string;
  unansweredSubmits?: number;
  parts?: {
    seq: number;
    smsc_id: string;
    state: string;
    stat: string | null;
    err: string | null;
  }[];
  refund?: boolean;
  error?: string | null;
}

describe.each(migratedDatabases())('CDRs on %s', (_name, open) => {
  const suite = useMigratedAccount(open);

  async function username(accountId: string): Promise<string> {
    const { rows } = await suite.db.query<{ username: string }>(
      'SELECT username FROM accounts WHERE id = $1',
      [accountId],
    );
    return rows[0].username;
  }

  async function otherAccount(): Promise<string> {
    const { rows } = await suite.db.query<{ id: string }>(
      `INSERT INTO accounts (username, password_hash) VALUES ('other-account', 'x') RETURNING id`,
    );
    return rows[0].id;
  }

  async function insert(m: Message): Promise<string> {
    const id = timeOrderedId(m.at);
    const account = m.account ?? suite.accountId;
    await suite.db.query(
      `INSERT INTO messages (id, account_id, state, to_addr, from_addr, content, coding, segments, cost, smsc_id,
                             route, connector, entry, unanswered_submits, error, created_at, submitted_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'the secret text', 8, $6, $7, $8, 'r1', 'c1', 'rest', $9, $10, $11, $11, $12)`,
      [
        id,
        account,
        m.state,
        m.to ?? '41790000001',
        m.from === undefined ? 'Shop' : m.from,
        m.segments ?? 1,
        m.cost ?? '1.5',
        `smsc-${id}`,
        m.unansweredSubmits ?? 0,
        m.error ?? null,
        m.at,
        new Date(m.at.getTime() + 5000),
      ],
    );
    for (const p of m.parts ?? [])
      await suite.db.query(
        `INSERT INTO message_parts (message_id, seq, smsc_id, state, stat, err) VALUES ($1, $2, $3, $4, $5, $6)`,
        [id, p.seq, p.smsc_id, p.state, p.stat, p.err],
      );
    await suite.db.query(
      `INSERT INTO credit_ledger (account_id, amount, sms_count, reason, message_id) VALUES ($1, -$2::numeric, 0, 'debit', $3)`,
      [account, m.cost ?? '1.5', id],
    );
    if (m.refund)
      await suite.db.query(
        `INSERT INTO credit_ledger (account_id, amount, sms_count, reason, message_id) VALUES ($1, $2, 0, 'refund', $3)`,
        [account, m.cost ?? '1.5', id],
      );
    return id;
  }

  async function read(
    range: { since?: Date; until?: Date; accountId?: string; parts?: boolean },
    chunk?: number,
  ): Promise<CdrRow[]> {
    const rows: CdrRow[] = [];
    for await (const row of readCdrs(
      suite.db,
      {
        since: range.since ?? DAY,
        until: range.until ?? NEXT_DAY,
        accountId: range.accountId,
        parts: range.parts ?? false,
      },
      chunk,
    ))
      rows.push(row);
    return rows;
  }

  /** A day of messages: final ones of each kind, one not yet final, one on the next day. */
  async function day(): Promise<Record<string, string>> {
    await addMessagePartition(suite.db, DAY, NEXT_DAY);
    const delivered = await insert({ at: at(1), state: 'delivered', to: '4179123', from: 'a,"b"' });
    // Priced by a list's version and costed by a connector's (docs/billing.md).
    await suite.db.query(
      'UPDATE messages SET price_version = 3, supplier_cost = 0.4, cost_version = 7 WHERE id = $1',
      [delivered],
    );
    return {
      delivered,
      refunded: await insert({ at: at(2), state: 'failed', refund: true, error: 'no route' }),
      cancelled: await insert({ at: at(3), state: 'cancelled', to: '33612', from: null }),
      heldCancel: await insert({ at: at(4), state: 'cancelled', unansweredSubmits: 1 }),
      parts: await insert({
        at: at(5),
        state: 'undelivered',
        cost: '3',
        segments: 2,
        to: '8613800',
        error: 'UNDELIV err:001',
        parts: [
          { seq: 1, smsc_id: 'p1', state: 'delivered', stat: 'DELIVRD', err: '000' },
          { seq: 2, smsc_id: 'p2', state: 'undelivered', stat: 'UNDELIV', err: '001' },
        ],
      }),
      open: await insert({ at: at(6), state: 'submitted' }),
      nextDay: await insert({ at: new Date(NEXT_DAY.getTime() + 1000), state: 'delivered' }),
    };
  }

  it('reads one row per message in a final state of the range, in id order, with its money', async () => {
    const ids = await day();
    const rows = await read({});
    expect(rows.map((r) => r.id)).toEqual([
      ids.delivered,
      ids.refunded,
      ids.cancelled,
      ids.heldCancel,
      ids.parts,
    ]);
    const name = await username(suite.accountId);
    expect(rows[0]).toEqual({
      id: ids.delivered,
      username: name,
      entry: 'rest',
      from_addr: 'a,"b"',
      to_addr: '4179123',
      country_code: '41',
      segments: 1,
      coding: 8,
      charged: '1.500000',
      refunded: '0.000000',
      price_version: '3',
      supplier_cost: '0.400000',
      cost_version: '7',
      route: 'r1',
      connector: 'c1',
      smsc_id: `smsc-${ids.delivered}`,
      batch_id: null,
      accepted_at: at(1).toISOString(),
      submitted_at: at(1).toISOString(),
      done_at: new Date(at(1).getTime() + 5000).toISOString(),
      state: 'delivered',
      error: null,
      part_rows: null,
    });
    // A refund's own ledger row, and a cancel of which the SMSC holds nothing, give the cost back.
    expect(rows.map((r) => [r.charged, r.refunded])).toEqual([
      ['1.500000', '0.000000'],
      ['1.500000', '1.500000'],
      ['1.500000', '1.500000'],
      ['1.500000', '0.000000'],
      ['3.000000', '0.000000'],
    ]);
    expect(rows.map((r) => r.country_code)).toEqual(['41', '41', '33', '41', '86']);
    expect(rows[4].part_rows).toBeNull();
    const withParts = await read({ parts: true });
    expect(withParts[4].part_rows).toEqual([
      { seq: 1, smsc_id: 'p1', state: 'delivered', stat: 'DELIVRD', err: '000' },
      { seq: 2, smsc_id: 'p2', state: 'undelivered', stat: 'UNDELIV', err: '001' },
    ]);
    expect(withParts[0].part_rows).toBeNull();
  });

  it('reads in chunks by id, one account or all', async () => {
    const ids = await day();
    const other = await otherAccount();
    const theirs = await insert({ at: at(7), state: 'delivered', account: other });
    const all = await read({}, 2);
    expect(all.map((r) => r.id)).toEqual([
      ids.delivered,
      ids.refunded,
      ids.cancelled,
      ids.heldCancel,
      ids.parts,
      theirs,
    ]);
    expect((await read({ accountId: other }, 2)).map((r) => r.id)).toEqual([theirs]);
    expect((await read({ accountId: suite.accountId }, 1)).length).toBe(5);
    expect((await read({ since: at(2), until: at(4) })).map((r) => r.id)).toEqual([
      ids.refunded,
      ids.cancelled,
    ]);
  });

  it("keeps the CDRs of a dropped period, and never the messages' text", async () => {
    await day();
    const before = await read({ parts: true });
    const { rows: periods } = await suite.db.query<{ suffix: string }>(
      `SELECT suffix FROM message_partitions WHERE from_at = $1`,
      [DAY],
    );
    expect(await dropMessagePartition(suite.db, periods[0].suffix)).toBe(6);
    const open = before.length;
    const { rows: left } = await suite.db.query(
      `SELECT 1 FROM messages WHERE id >= $1::uuid AND id < $2::uuid`,
      [timeIdFloor(DAY), timeIdFloor(NEXT_DAY)],
    );
    expect(left).toEqual([]);
    // The message not final yet ends with the drop: its CDR joins the others, with its last state.
    const after = await read({ parts: true });
    expect(after.filter((r) => r.state !== 'submitted')).toEqual(before);
    expect(after.filter((r) => r.state === 'submitted')).toEqual([
      expect.objectContaining({ state: 'submitted', charged: expect.any(String) }),
    ]);
    expect(after).toHaveLength(open + 1);
    expect(await read({ parts: true }, 2)).toEqual(after);
    // Nothing of any text is in the archive.
    const { rows: archived } = await suite.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM cdrs',
    );
    expect(archived[0].n).toBe(6);
    const { rows: dump } = await suite.db.query<{ t: string }>('SELECT cdrs::text AS t FROM cdrs');
    expect(dump.filter((r) => r.t.includes('secret text'))).toEqual([]);
  });

  it('deletes archived CDRs before a time, in chunks', async () => {
    const ids = await day();
    const { rows: periods } = await suite.db.query<{ suffix: string }>(
      `SELECT suffix FROM message_partitions WHERE from_at = $1`,
      [DAY],
    );
    await dropMessagePartition(suite.db, periods[0].suffix);
    expect(await deleteCdrsBefore(suite.db, at(4), 1)).toBe(1);
    expect(await deleteCdrsBefore(suite.db, at(4), 10)).toBe(2);
    expect(await deleteCdrsBefore(suite.db, at(4), 10)).toBe(0);
    expect((await read({})).map((r) => r.id)).toEqual([ids.heldCancel, ids.parts, ids.open]);
  });

  it("names each CDR's country and refund as smsgw_calling_code and refundedAmount do, for every kind of message", async () => {
    await addMessagePartition(suite.db, DAY, NEXT_DAY);
    const part = { seq: 1, smsc_id: 'p', state: 'delivered', stat: 'DELIVRD', err: '000' };
    const kinds: Omit<Message, 'at'>[] = [];
    for (const to of ['12025550123', '4179123', '2348031234567', '999123', '', '7'])
      for (const state of ['delivered', 'failed', 'cancelled'])
        for (const refund of [false, true])
          for (const held of ['none', 'submit', 'part'] as const)
            kinds.push({
              state,
              to,
              refund,
              unansweredSubmits: held === 'submit' ? 1 : 0,
              parts: held === 'part' ? [{ ...part, smsc_id: `p-${kinds.length}` }] : [],
            });
    for (const [i, kind] of kinds.entries()) await insert({ at: at(1, i % 60), ...kind });
    const expected = await suite.db.query<{ id: string; country_code: string; refunded: string }>(
      `SELECT m.id, smsgw_calling_code(m.to_addr) AS country_code,
              (${refundedAmount('m')})::numeric(20, 6)::text AS refunded
         FROM messages m ORDER BY m.id`,
    );
    const rows = await read({}, 7);
    expect(rows.map((r) => [r.id, r.country_code, r.refunded])).toEqual(
      expected.rows.map((r) => [r.id, r.country_code, r.refunded]),
    );
    // Both kinds of refund, and both kinds of country, are among them.
    expect(new Set(rows.map((r) => r.refunded))).toEqual(new Set(['0.000000', '1.500000']));
    expect(new Set(rows.map((r) => r.country_code))).toEqual(new Set(['1', '41', '234', '7', '']));
  });
});
