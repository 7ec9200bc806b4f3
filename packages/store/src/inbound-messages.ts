import type { Queryable } from '@smsgw/kit';

/** Statements on `inbound_messages` (migration 016). */

export interface InboundMessageRow {
  id: string;
  connector: string;
  from_addr: string;
  to_addr: string;
  coding: number;
  content: string | null;
  hex_content: string | null;
  parts_expected: number;
  parts_received: number;
  incomplete: boolean;
  state: 'received' | 'routed' | 'delivered' | 'failed' | 'unrouted';
  account_id: string | null;
  mo_route: string | null;
  keyword: string | null;
  received_at: Date;
}

/** One inbound message by id. */
export async function findInboundMessage(
  db: Queryable,
  id: string,
): Promise<InboundMessageRow | undefined> {
  const { rows } = await db.query<InboundMessageRow>(
    `SELECT id, connector, from_addr, to_addr, coding, content, hex_content, parts_expected,
            parts_received, incomplete, state, account_id, mo_route, keyword, received_at
       FROM inbound_messages WHERE id = $1`,
    [id],
  );
  return rows[0];
}
