import { marginOf, type CdrPer, type CdrRecord } from '@smsgw/contracts';
import { CODING_NAMES } from '@smsgw/smsc';
import type { CdrPart, CdrRow } from '@smsgw/store';

const NO_MONEY = '0.000000';

/** A part's error as a message's is written: its receipt's stat and err, unless it was delivered. */
function partError(p: CdrPart): string | null {
  if (p.state === 'delivered' || p.state === 'submitted' || p.stat === null) return null;
  return `${p.stat} err:${p.err ?? ''}`;
}

function messageRecord(r: CdrRow): CdrRecord {
  return {
    id: r.id,
    account: r.username,
    entry: r.entry,
    sender: r.from_addr,
    destination: r.to_addr,
    country_code: r.country_code,
    parts: r.segments,
    encoding: CODING_NAMES[r.coding] ?? String(r.coding),
    charged: r.charged,
    refunded: r.refunded,
    price_version: r.price_version,
    cost: r.supplier_cost,
    cost_version: r.cost_version,
    margin: r.supplier_cost === null ? null : marginOf(r.charged, r.refunded, r.supplier_cost),
    route: r.route,
    connector: r.connector,
    smsc_id: r.smsc_id,
    batch_id: r.batch_id,
    accepted_at: r.accepted_at,
    submitted_at: r.submitted_at,
    done_at: r.done_at,
    state: r.state,
    error: r.error,
  };
}

/**
 * The rows a CDR makes: one per message, or, per part, one per part it was sent in (one, part 1,
 * for a message with no parts recorded). The money of a message (charged, refunded, cost and
 * margin) is on its first part's row and
 * the other parts show 0, so the sums of an export per part are those of one per message exactly:
 * a message is charged and refunded whole, and not every part of it may have been recorded.
 */
export function cdrRecords(r: CdrRow, per: CdrPer): CdrRecord[] {
  const message = messageRecord(r);
  if (per === 'message') return [message];
  if (r.part_rows === null || r.part_rows.length === 0) return [{ ...message, part: 1 }];
  return r.part_rows.map((p, i) => ({
    ...message,
    part: p.seq,
    smsc_id: p.smsc_id,
    state: p.state,
    error: partError(p),
    ...(i > 0 && {
      charged: NO_MONEY,
      refunded: NO_MONEY,
      ...(r.supplier_cost !== null && { cost: NO_MONEY, margin: NO_MONEY }),
    }),
  }));
}
