import type { MessageTimeline } from '@smsgw/contracts';
import { TableWriter } from './table-writer';

type Timeline = MessageTimeline['data'];
type Step = Timeline['events'][number];

/** A gateway time in a message's story: to the millisecond, where steps often share a second. */
const precise = (iso: string | null): string => {
  if (iso === null) return '-';
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toISOString().replace('T', ' ').slice(0, 23);
};

/** Line breaks written as \n, so the text stays on its line. */
const content = (m: Timeline['message']): string =>
  m.contentMasked
    ? '(masked: needs messages:content)'
    : (m.content?.replace(/\r?\n/g, '\\n') ?? '(binary)');

/** The message's facts, one a line, then its story: one line per event with its time and text. */
export function printTimeline(timeline: MessageTimeline, print: (line: string) => void): void {
  const m = timeline.data.message;
  const state = m.outcome === 'unknown' ? `${m.state} (outcome unknown)` : m.state;
  const facts: [string, string | null | undefined][] = [
    ['message', m.id],
    ['account', m.account],
    ['state', m.error ? `${state}: ${m.error}` : state],
    ['to', m.to],
    ['from', m.from ?? '-'],
    ['entry', m.entry ?? '-'],
    ['batch', m.batchId],
    ['route', m.route],
    ['connector', m.connector],
    ['parts', `${m.segments} (coding ${m.coding})`],
    ['cost', m.cost],
    ['attempts', String(m.attempts)],
    ['smsc id', m.smscId],
    ['accepted', precise(m.createdAt)],
    ['submitted', m.submittedAt ? precise(m.submittedAt) : null],
    ['updated', precise(m.updatedAt)],
    ['content', content(m)],
  ];
  const width = Math.max(...facts.map(([label]) => label.length)) + 2;
  for (const [label, value] of facts)
    if (value !== null && value !== undefined) print(`${label.padEnd(width)}${value}`);
  print('');
  new TableWriter<Step>(
    [
      { head: 'AT (UTC)', cell: (e) => precise(e.at) },
      { head: 'EVENT', cell: (e) => e.event },
      { head: 'WHAT HAPPENED', cell: (e) => e.text, maxWidth: 160 },
    ],
    print,
  ).write(timeline.data.events);
}
