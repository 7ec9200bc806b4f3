import type { Queryable } from '@smsgw/kit';

/** Statements on `admin_audit` (migration 027). */

export interface AuditEntryInput {
  actor: string;
  action: string;
  target: string;
  /** Already redacted by the caller: no password or secret reaches this table. */
  summary: Record<string, unknown>;
  address: string;
  status: number;
  result: string;
}

export interface AuditEntryRow extends AuditEntryInput {
  id: string;
  at: Date;
}

export interface AuditFilter {
  actor?: string | undefined;
  action?: string | undefined;
  /** Entries whose target starts with this. */
  target?: string | undefined;
  result?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  /** Entries older than this id (the previous page's cursor). */
  before?: string | undefined;
  limit: number;
}

export async function insertAuditEntry(db: Queryable, entry: AuditEntryInput): Promise<void> {
  await db.query(
    `INSERT INTO admin_audit (actor, action, target, summary, address, status, result)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7)`,
    [
      entry.actor,
      entry.action,
      entry.target,
      JSON.stringify(entry.summary),
      entry.address,
      entry.status,
      entry.result,
    ],
  );
}

/** Newest first; a page of at most `limit` entries matching every filter given. */
export async function auditPage(db: Queryable, filter: AuditFilter): Promise<AuditEntryRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replaceAll('?', `$${params.length}`));
  };
  if (filter.actor !== undefined) add('actor = ?', filter.actor);
  if (filter.action !== undefined) add('action = ?', filter.action);
  if (filter.target !== undefined) add('left(target, length(?::text)) = ?', filter.target);
  if (filter.result !== undefined) add('result = ?', filter.result);
  if (filter.since !== undefined) add('at >= ?', filter.since);
  if (filter.until !== undefined) add('at < ?', filter.until);
  if (filter.before !== undefined) add('id < ?::bigint', filter.before);
  params.push(filter.limit);
  const { rows } = await db.query<AuditEntryRow>(
    `SELECT id::text AS id, at, actor, action, target, summary, address, status, result
       FROM admin_audit ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY admin_audit.id DESC LIMIT $${params.length}`,
    params,
  );
  return rows;
}
