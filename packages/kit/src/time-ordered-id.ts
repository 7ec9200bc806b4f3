import { v7 } from 'uuid';

/**
 * A message id: a UUIDv7, whose first 48 bits are the Unix time in ms, so that `messages` can be
 * partitioned by id in time order (docs/retention.md) and a lookup by id reads one partition.
 */
export function timeOrderedId(at?: Date): string {
  return at === undefined ? v7() : v7({ msecs: at.getTime() });
}

/** The lowest UUIDv7 of a moment: the bound, in id order, of a partition that starts then. */
export function timeIdFloor(at: Date): string {
  const hex = Math.floor(at.getTime()).toString(16).padStart(12, '0');
  if (hex.length > 12) throw new RangeError(`a UUIDv7 cannot hold ${at.toISOString()}`);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}
