import {
  decideReportWish,
  withoutReportAsk,
  type MessageEntry,
  type MessageParams,
  type SendRequest,
} from '@smsgw/contracts';
import type { NewMessage } from '../message-store';
import type { MessagePlan } from '@smsgw/smsc';
import type { RouteDecision } from '@smsgw/routing';

/**
 * Dashed names as clients wrote them never reach storage: params are kept under canonical names.
 * What the report wish was decided from is the wish's (NewMessage.report), not the params'.
 */
function extraParams(m: MessageParams): Record<string, unknown> {
  const { content: _c, hex_content: _h, coding: _k, from: _f, ...rest } = m;
  return withoutReportAsk(rest);
}

/** The row a single send asks to record, with the coding and parts its plan chose. */
export function newMessage(
  id: string,
  accountId: string,
  request: SendRequest,
  plan: Pick<MessagePlan, 'coding' | 'segments'>,
  routing: RouteDecision,
  entry: MessageEntry,
): NewMessage {
  return {
    id,
    accountId,
    batchId: null,
    to: request.to,
    from: request.from ?? null,
    content: request.content ?? null,
    hexContent: request.hex_content ?? null,
    coding: plan.coding,
    segments: plan.segments,
    params: extraParams(request),
    // The entry point's way of reporting (InterfaceReport, SMPP's receipt) rides on the request.
    report: decideReportWish(request),
    routing,
    entry,
  };
}
