import type { Queryable } from '@smsgw/kit';

/**
 * Statements on `sms_service_replies` (migration 035): the reply of a Kannel sms-service route,
 * one per inbound message, written before the reply is accepted.
 */

export interface SmsServiceReplyRow {
  inbound_id: string;
  /** The id the reply is accepted under: the messages primary key lets it be accepted once. */
  message_id: string;
  mo_route: string;
  from_addr: string;
  to_addr: string;
  content: string;
}

const COLUMNS = 'inbound_id, message_id, mo_route, from_addr, to_addr, content';

/** The reply tied to an inbound message, when one was decided. */
export async function findSmsServiceReply(
  db: Queryable,
  inboundId: string,
): Promise<SmsServiceReplyRow | undefined> {
  const { rows } = await db.query<SmsServiceReplyRow>(
    `SELECT ${COLUMNS} FROM sms_service_replies WHERE inbound_id = $1`,
    [inboundId],
  );
  return rows[0];
}

/**
 * Whether an inbound message is one of these replies come back: the same sender, receiver and
 * text as a reply decided within `withinMs` (the SMSC delivered it to a number served here).
 */
export async function isSmsServiceReplyEcho(
  db: Queryable,
  message: { from: string; to: string; content: string },
  withinMs: number,
): Promise<boolean> {
  const { rows } = await db.query<{ echo: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM sms_service_replies
                     WHERE from_addr = $1 AND to_addr = $2 AND content = $3
                       AND created_at > now() - make_interval(secs => $4::float8 / 1000)) AS echo`,
    [message.from, message.to, message.content, withinMs],
  );
  return rows[0].echo;
}

/**
 * Ties a reply to its inbound message unless the route has sent `limit` replies to the same number
 * within `windowMs` already. Inside the caller's transaction: the lock on the route and number
 * makes two notifiers counting at once count one after the other. Undefined when nothing was
 * written: over the limit, or the inbound message has its reply already (findSmsServiceReply).
 */
export async function claimSmsServiceReply(
  tx: Queryable,
  reply: SmsServiceReplyRow,
  limit: { replies: number; windowMs: number },
): Promise<SmsServiceReplyRow | undefined> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
    JSON.stringify(['sms-service reply', reply.mo_route, reply.to_addr]),
  ]);
  const { rows } = await tx.query<SmsServiceReplyRow>(
    `INSERT INTO sms_service_replies (${COLUMNS})
     SELECT $1, $2, $3, $4, $5, $6
      WHERE (SELECT count(*) FROM sms_service_replies
              WHERE mo_route = $3 AND to_addr = $5
                AND created_at > now() - make_interval(secs => $8::float8 / 1000)) < $7
     ON CONFLICT (inbound_id) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      reply.inbound_id,
      reply.message_id,
      reply.mo_route,
      reply.from_addr,
      reply.to_addr,
      reply.content,
      limit.replies,
      limit.windowMs,
    ],
  );
  return rows[0];
}
