import type { AccountView, BatchSummary, MessageSummary } from '@smsgw/contracts';
import type { Column } from './table-writer';

/** A gateway time as people read it in a table: UTC to the second ("2026-12-01 08:00:00"). */
const utc = (iso: string): string => {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toISOString().slice(0, 19).replace('T', ' ');
};

/** A row of GET /admin/v1/accounts: the account as the admin API shows it. */
export type AccountRow = AccountView;

const orDash = (value: string | null | undefined): string => value ?? '-';
const account = <T extends { account?: string | undefined }>(): Column<T> => ({
  head: 'ACCOUNT',
  cell: (row) => orDash(row.account),
  maxWidth: 20,
});

/** A message's text in a list: masked for an operator without messages:content. */
const contentOf = (m: MessageSummary): string =>
  m.contentMasked ? '(masked)' : (m.content ?? '(binary)');

/** The columns of `messages search`; the account's own list has no ACCOUNT column. */
export const messageColumns = (withAccount: boolean): Column<MessageSummary>[] => [
  { head: 'CREATED (UTC)', cell: (m) => utc(m.createdAt) },
  { head: 'ID', cell: (m) => m.id },
  ...(withAccount ? [account<MessageSummary>()] : []),
  { head: 'TO', cell: (m) => m.to },
  { head: 'FROM', cell: (m) => orDash(m.from) },
  // As the state filter names it: a failure whose outcome is unknown is `unknown`.
  { head: 'STATE', cell: (m) => (m.outcome === 'unknown' ? 'unknown' : m.state) },
  { head: 'PARTS', cell: (m) => String(m.segments), align: 'right' },
  { head: 'COST', cell: (m) => m.cost, align: 'right' },
  { head: 'ERROR', cell: (m) => orDash(m.error), maxWidth: 24 },
  { head: 'CONTENT', cell: contentOf },
];

/** The columns of `batches list`. */
export const batchColumns = (withAccount: boolean): Column<BatchSummary>[] => [
  { head: 'CREATED (UTC)', cell: (b) => utc(b.createdAt) },
  { head: 'BATCH', cell: (b) => b.batchId },
  ...(withAccount ? [account<BatchSummary>()] : []),
  { head: 'STATE', cell: (b) => b.state },
  { head: 'TOTAL', cell: (b) => String(b.total), align: 'right' },
  { head: 'EXPANDED', cell: (b) => String(b.expanded), align: 'right' },
  { head: 'PARTS', cell: (b) => String(b.segments), align: 'right' },
  { head: 'COST', cell: (b) => b.cost, align: 'right' },
  { head: 'SCHEDULED (UTC)', cell: (b) => (b.scheduledAt ? utc(b.scheduledAt) : '-') },
  { head: 'COMPLETED (UTC)', cell: (b) => (b.completedAt ? utc(b.completedAt) : '-') },
];

/** The columns of `accounts list`. */
export const accountColumns: Column<AccountRow>[] = [
  { head: 'USERNAME', cell: (a) => a.username, maxWidth: 64 },
  { head: 'BALANCE', cell: (a) => a.balance, align: 'right' },
  { head: 'SMS COUNT', cell: (a) => a.sms_count, align: 'right' },
  { head: 'RATE', cell: (a) => a.rate, align: 'right' },
  { head: 'STATE', cell: (a) => (a.disabled_at ? 'disabled' : 'enabled') },
  { head: 'CREATED (UTC)', cell: (a) => utc(a.created_at) },
];
