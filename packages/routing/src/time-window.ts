import type { RouteFilters, Weekday } from '@smsgw/contracts';

type Window = NonNullable<RouteFilters['window']>;

const WEEKDAYS: Record<string, Weekday> = {
  Mon: 'mon',
  Tue: 'tue',
  Wed: 'wed',
  Thu: 'thu',
  Fri: 'fri',
  Sat: 'sat',
  Sun: 'sun',
};

/** One formatter per time zone: building one costs far more than using it. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h * 60 + m;
}

/**
 * Whether `at` falls in the window: its days and its hours (from inclusive, to exclusive; a `from`
 * after `to` spans midnight, counted on the day it starts), in the window's time zone.
 */
export function inTimeWindow(window: Window, at: Date): boolean {
  let day: Weekday | undefined;
  let hour = 0;
  let minute = 0;
  for (const part of formatter(window.time_zone).formatToParts(at)) {
    if (part.type === 'weekday') day = WEEKDAYS[part.value];
    else if (part.type === 'hour') hour = Number(part.value);
    else if (part.type === 'minute') minute = Number(part.value);
  }
  const now = hour * 60 + minute;
  const from = window.from === undefined ? 0 : minutesOf(window.from);
  const to = window.to === undefined ? 24 * 60 : minutesOf(window.to);
  const days = window.days;
  if (from <= to)
    return now >= from && now < to && (!days || (day !== undefined && days.includes(day)));
  // Spans midnight: the hours after midnight belong to the day before.
  if (now >= from) return !days || (day !== undefined && days.includes(day));
  if (now < to) {
    const order: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
    const before = day === undefined ? undefined : order[(order.indexOf(day) + 6) % 7];
    return !days || (before !== undefined && days.includes(before));
  }
  return false;
}
