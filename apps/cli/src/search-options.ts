import { InvalidArgumentError } from 'commander';
import { AdminMessageSearchQuerySchema, SEARCH_DEFAULTS } from '@smsgw/contracts';

/** What the CLI needs of a contract's field schema: whether a value passes, and why not. */
interface FieldSchema {
  safeParse(
    value: unknown,
  ): { success: true } | { success: false; error: { issues: { message: string }[] } };
}

/**
 * An option checked by the same schema the gateway checks it with, so a bad value is a usage
 * error that names the option before anything is asked; the value is sent as it was typed.
 */
export const checkedBy =
  (schema: FieldSchema) =>
  (value: string): string => {
    const result = schema.safeParse(value);
    if (!result.success)
      throw new InvalidArgumentError(result.error.issues[0]?.message ?? 'not a valid value');
    return value;
  };

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A point in time: ISO 8601 with an offset, as the gateway's schema takes it, or a while ago ("30m",
 * "6h", "2d"), sent as ISO 8601. `now` is given so a test can fix it.
 */
export const pointInTime =
  (now: () => number = Date.now) =>
  (value: string): string => {
    const ago = /^(\d{1,6})([mhd])$/.exec(value.trim());
    if (ago)
      return new Date(now() - Number(ago[1]) * UNIT_MS[ago[2] as 'm' | 'h' | 'd']).toISOString();
    if (AdminMessageSearchQuerySchema.shape.since.safeParse(value).success) return value;
    throw new InvalidArgumentError(
      'expected an ISO 8601 time with offset (2026-12-01T08:00:00Z) or a while ago (30m, 6h, 2d)',
    );
  };

/** Rows per page: what the gateway allows. */
export const pageSize = (value: string): number => {
  const n = /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= SEARCH_DEFAULTS.maxLimit))
    throw new InvalidArgumentError(`expected a whole number from 1 to ${SEARCH_DEFAULTS.maxLimit}`);
  return n;
};

/** The query string of the options given, in the gateway's names. */
export function queryOf(values: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(values))
    if (value !== undefined) query.set(key, String(value));
  return query.size > 0 ? `?${query.toString()}` : '';
}
