import {
  BatchMessageSchema,
  BatchRequestSchema,
  GlobalsSchema,
  applyGlobals,
  decideReportWish,
  withoutReportAsk,
  type ErrorItem,
  type ReportWish,
} from '@smsgw/contracts';
import { HttpError, describeIssues, parseInput } from '@smsgw/kit';
import { EncodingError, planMessage } from '@smsgw/smsc';
import type { RouteDecision } from '@smsgw/routing';

export interface BatchLimits {
  maxParts: number;
  maxRecipients: number;
  maxScheduleDays: number;
}

export interface PlannedEntry {
  from: string | null;
  content: string | null;
  hexContent: string | null;
  coding: number;
  segments: number;
  params: Record<string, unknown>;
  /** Its messages' report wish, decided here at acceptance (decideReportWish); unset: none. */
  report?: ReportWish | null;
  recipients: string[];
  /** Set once the batch is routed (batch-routing.ts); unset, the default connector at the rate. */
  routing?: RouteDecision;
}

export interface BatchPlan {
  entries: PlannedEntry[];
  recipients: number;
  /** Σ segments × recipients: what is charged. */
  segments: number;
  scheduledAt: Date | null;
  callbackUrl: string | null;
  errbackUrl: string | null;
  /** Recipients left out because they opted out (set at acceptance, after planning). */
  optedOut?: number;
}

/** Errors listed in a 400; beyond this a batch is bad enough that more detail does not help. */
const MAX_LISTED_ERRORS = 100;

/**
 * `YYYY-MM-DD HH:MM:SS` in the server's time zone (TZ), or `<seconds>s` from now
 * (docs/architecture.md § Wire compatibility).
 */
export function parseScheduleAt(value: string, now: Date): Date | undefined {
  const relative = /^(\d+)s$/.exec(value);
  if (relative) return new Date(now.getTime() + Number(relative[1]) * 1000);
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(y, mo - 1, d, h, mi, s);
  // Date rolls 2026-02-30 over to March: a date that does not exist is refused, not moved.
  if (
    date.getFullYear() !== y ||
    date.getMonth() !== mo - 1 ||
    date.getDate() !== d ||
    date.getHours() !== h ||
    date.getMinutes() !== mi
  )
    return undefined;
  return date;
}

/**
 * Validates a whole batch before anything is charged (promise 5): every message with the globals
 * applied, its encoding and parts, the schedule and the size. All faults are reported at once.
 */
export function planBatch(body: unknown, limits: BatchLimits, now: Date): BatchPlan {
  const steps = planSteps(body, limits, now);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Messages validated between two turns of the event loop in planBatchInSlices. */
const MESSAGES_PER_SLICE = 500;

/**
 * planBatch in slices of messages, giving the event loop a turn between two: a batch of a million
 * messages is validated without holding up other customers' requests meanwhile.
 */
export async function planBatchInSlices(
  body: unknown,
  limits: BatchLimits,
  now: Date,
): Promise<BatchPlan> {
  const steps = planSteps(body, limits, now);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

function* planSteps(body: unknown, limits: BatchLimits, now: Date): Generator<void, BatchPlan> {
  const request = parseInput(BatchRequestSchema, body);
  const errors: ErrorItem[] = [];
  const globals = GlobalsSchema.safeParse(request.globals ?? {});
  if (!globals.success)
    for (const item of describeIssues(globals.error))
      errors.push({ ...item, field: `globals.${item.field}` });

  const entries: PlannedEntry[] = [];
  let recipients = 0;
  let segments = 0;
  for (const [index, raw] of request.messages.entries()) {
    if (index > 0 && index % MESSAGES_PER_SLICE === 0) yield;
    const parsed = BatchMessageSchema.safeParse(applyGlobals(request.globals, raw));
    if (!parsed.success) {
      for (const item of describeIssues(parsed.error)) errors.push({ index, ...item });
      continue;
    }
    const { to, from, content, hex_content, coding, ...params } = parsed.data;
    let plan;
    try {
      plan = planMessage(
        { content, hexContent: hex_content, coding, udh: params.udh },
        limits.maxParts,
      );
    } catch (err) {
      if (!(err instanceof EncodingError)) throw err;
      errors.push({
        index,
        field: hex_content !== undefined ? 'hex_content' : 'content',
        message: err.message,
      });
      continue;
    }
    const list = Array.isArray(to) ? to : [to];
    recipients += list.length;
    segments += plan.segments * list.length;
    entries.push({
      from: from ?? null,
      content: content ?? null,
      hexContent: hex_content ?? null,
      coding: plan.coding,
      segments: plan.segments,
      params: withoutReportAsk(params),
      report: decideReportWish(params),
      recipients: list,
    });
  }

  let scheduledAt: Date | null = null;
  const scheduleAt = request.batch_config?.schedule_at;
  if (scheduleAt !== undefined) {
    const at = parseScheduleAt(scheduleAt, now);
    if (!at)
      errors.push({ field: 'batch_config.schedule_at', message: 'not a valid date and time' });
    else if (at.getTime() < now.getTime() - 1000)
      errors.push({ field: 'batch_config.schedule_at', message: 'is in the past' });
    else if (at.getTime() > now.getTime() + limits.maxScheduleDays * 86_400_000) {
      errors.push({
        field: 'batch_config.schedule_at',
        message: `is more than ${limits.maxScheduleDays} days ahead`,
      });
    } else scheduledAt = at;
  }
  if (errors.length > 0) {
    const listed = errors.slice(0, MAX_LISTED_ERRORS);
    const more = errors.length > listed.length ? ` (the first ${listed.length} are listed)` : '';
    throw new HttpError(
      'INVALID_PARAMETER',
      `The batch has ${errors.length} invalid value${errors.length === 1 ? '' : 's'}${more}; nothing was sent`,
      { errors: listed },
    );
  }
  if (recipients > limits.maxRecipients) {
    throw HttpError.invalid(
      'messages',
      `the batch has ${recipients} recipients; at most ${limits.maxRecipients} are allowed`,
    );
  }
  return {
    entries,
    recipients,
    segments,
    scheduledAt,
    callbackUrl: request.batch_config?.callback_url ?? null,
    errbackUrl: request.batch_config?.errback_url ?? null,
  };
}
