import {
  formatDecimal,
  type MessageEntry,
  type MessageState,
  type MessageSummary,
} from '@smsgw/contracts';
import type { MessageSearchRow } from '@smsgw/store';

/** What the caller may see of a message beside its own facts. */
export interface MessageVisibility {
  /** The account's name: operators search across accounts. */
  account: boolean;
  /** Route and connector names (operators; customers where SHOW_ROUTES_TO_CUSTOMERS says). */
  routes: boolean;
  /** The text (customers see their own; operators with messages:content). */
  content: boolean;
}

export function messageSummary(row: MessageSearchRow, see: MessageVisibility): MessageSummary {
  const hasText = row.content !== null;
  return {
    id: row.id,
    ...(see.account && { account: row.username }),
    state: row.state as MessageState,
    outcome: row.outcome,
    to: row.to_addr,
    from: row.from_addr,
    content: see.content ? row.content : null,
    ...(!see.content && hasText && { contentMasked: true }),
    batchId: row.batch_id,
    entry: row.entry as MessageEntry | null,
    segments: row.segments,
    coding: row.coding,
    cost: formatDecimal(row.cost),
    error: row.error,
    smscId: row.smsc_id,
    ...(see.routes && { route: row.route, connector: row.connector }),
    createdAt: row.created_at.toISOString(),
    submittedAt: row.submitted_at?.toISOString() ?? null,
    updatedAt: row.updated_at.toISOString(),
  };
}
