import { SEARCH_DEFAULTS } from '@smsgw/contracts';
import { HttpError } from '@smsgw/kit';

export interface SearchWindow {
  since: Date;
  until: Date;
}

const DAY_MS = 86_400_000;

/**
 * The time range a search reads: `until` defaults to now and `since` to a day before it, and a
 * range longer than `maxDays` (SEARCH_MAX_DAYS) is refused, so that no query reads without bound.
 */
export function searchWindow(
  asked: { since?: string | undefined; until?: string | undefined },
  maxDays: number,
  now: Date = new Date(),
): SearchWindow {
  const until = asked.until === undefined ? now : new Date(asked.until);
  const since =
    asked.since === undefined
      ? new Date(until.getTime() - SEARCH_DEFAULTS.sinceDays * DAY_MS)
      : new Date(asked.since);
  if (until.getTime() <= since.getTime())
    throw HttpError.invalid('until', 'must be later than since');
  if (until.getTime() - since.getTime() > maxDays * DAY_MS)
    throw HttpError.invalid(
      'since',
      `the range from since to until may be at most ${maxDays} days (SEARCH_MAX_DAYS)`,
    );
  return { since, until };
}
