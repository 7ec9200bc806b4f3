import type { LiveMinute, LiveStats } from '@smsgw/contracts';
import type { Queryable } from '@smsgw/kit';
import { minuteCounts } from '@smsgw/store';

const MINUTE_MS = 60_000;

/**
 * The last `minutes` minutes by minute of acceptance (the current one included), read from the
 * messages themselves: the hourly rollup is too coarse for a live view, and an hour of messages is
 * one partition's newest range. A minute without messages is a row of zeros, so a chart has no gaps.
 */
export async function liveStats(
  db: Queryable,
  minutes: number,
  now: Date = new Date(),
): Promise<LiveStats> {
  const since = new Date(
    Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS - (minutes - 1) * MINUTE_MS,
  );
  const counted = new Map(
    (await minuteCounts(db, since)).map((row) => [row.minute.getTime(), row]),
  );
  const rows: LiveMinute[] = [];
  for (let i = 0; i < minutes; i++) {
    const at = since.getTime() + i * MINUTE_MS;
    const row = counted.get(at);
    rows.push({
      minute: new Date(at).toISOString(),
      accepted: row?.accepted ?? 0,
      delivered: row?.delivered ?? 0,
      failed: row?.failed ?? 0,
      waiting: row?.waiting ?? 0,
      cancelled: row?.cancelled ?? 0,
    });
  }
  return { data: { since: since.toISOString(), until: now.toISOString(), minutes: rows } };
}
