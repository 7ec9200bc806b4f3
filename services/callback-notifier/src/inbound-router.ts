import type { Db, Logger } from '@smsgw/kit';
import {
  findInboundMessage,
  insertSmppInbound,
  isAccountDisabled,
  listMoRoutes,
  routeInboundMessage,
  staleReceivedInbound,
  type InboundMessageRow,
  type MoRouteRow,
} from '@smsgw/store';
import { matchMoRoute } from '@smsgw/routing';
import type { Counter } from 'prom-client';
import type { CallbackStore } from './callback-store';
import { fillKannelTemplate } from './kannel-template';
import { applyOptOutKeyword, type OptOutKeywords } from './opt-out-keywords';

/** The webhook's parameters: JSON fields, or Jasmin's MO form fields. */
export function moWebhookParams(
  m: InboundMessageRow,
  format: 'json' | 'jasmin',
): Record<string, string> {
  if (format === 'jasmin')
    return {
      id: m.id,
      from: m.from_addr,
      to: m.to_addr,
      'origin-connector': m.connector,
      coding: String(m.coding),
      content: m.content ?? '',
      binary: m.hex_content ?? Buffer.from(m.content ?? '', 'utf8').toString('hex'),
      priority: '0',
    };
  return {
    id: m.id,
    from: m.from_addr,
    to: m.to_addr,
    connector: m.connector,
    coding: String(m.coding),
    // Both for a text that held NUL: the text with U+FFFD in its place, the bytes as received.
    ...(m.content !== null && { text: m.content }),
    ...((m.content === null || m.hex_content !== null) && { binary: m.hex_content ?? '' }),
    keyword: m.keyword ?? '',
    incomplete: String(m.incomplete),
    parts: `${m.parts_received}/${m.parts_expected}`,
    receivedAt: m.received_at.toISOString(),
  };
}

/** Kannel's coding of an inbound message's data coding: 0 7-bit, 1 8-bit, 2 UCS-2. */
function kannelCoding(dataCoding: number): number {
  if (dataCoding === 8) return 2;
  return dataCoding === 4 || dataCoding === 2 ? 1 : 0;
}

/**
 * A Kannel sms-service URL filled in for an inbound message (urltrans.c): `%p` its sender,
 * `%P` the number it was sent to, `%a %b %k %s %r` its words, `%n` the route's name (Kannel's
 * service name), `%i` its connector (Kannel's smsc-id), `%t %T` when it came.
 */
export function smsServiceUrl(template: string, routeName: string, m: InboundMessageRow): string {
  return fillKannelTemplate(template, {
    text: m.content ?? Buffer.from(m.hex_content ?? '', 'hex').toString('latin1'),
    handset: m.from_addr,
    gateway: m.to_addr,
    // Kannel's MO message has no dlr-mask: msg.c creates it MSG_PARAM_UNDEFINED.
    dlrEvent: -1,
    id: m.id,
    smscId: m.connector,
    service: routeName,
    time: m.received_at,
    coding: kannelCoding(m.coding),
  });
}

/**
 * Gives each recorded inbound message to the account of the first MO route that matches it, in
 * one transaction with its opt-out keyword and its webhook call (a row the callback worker sends
 * with the DLRs' retries, guard and limits). A message no route takes is kept `unrouted`.
 */
export class InboundRouter {
  private routes: { at: number; rows: MoRouteRow[] } | undefined;

  constructor(
    private readonly db: Db,
    private readonly store: CallbackStore,
    private readonly logger: Logger,
    private readonly routed: Counter<'connector' | 'outcome'>,
    private readonly keywords: OptOutKeywords,
    /** How long the route table is kept in memory: a change takes effect within this. */
    private readonly routesTtlMs: number,
  ) {}

  /** true when a webhook call was queued. */
  async route(inboundId: string): Promise<boolean> {
    const message = await findInboundMessage(this.db, inboundId);
    if (!message || message.state !== 'received') return false;
    const route = matchMoRoute(await this.routeTable(), message);
    let held = false;
    const queued = await this.db.transaction(async (tx) => {
      const moved = await routeInboundMessage(
        tx,
        message.id,
        route ? { accountId: route.account_id, moRoute: route.name } : null,
      );
      if (!moved || !route) return false;
      await applyOptOutKeyword(tx, this.keywords, {
        accountId: route.account_id,
        from: message.from_addr,
        keyword: message.keyword,
      });
      if (route.smpp)
        await insertSmppInbound(tx, {
          id: message.id,
          accountId: route.account_id,
          from: message.from_addr,
          to: message.to_addr,
          coding: message.coding,
          content: message.content,
          hexContent: message.hex_content,
        });
      if (route.webhook_url === null) return false;
      // A disabled account's URL is not called, nor its sms-service's reply sent and charged: the
      // message is kept in its inbox, where it reads it once enabled.
      held = await isAccountDisabled(tx, route.account_id);
      if (held) return false;
      if (route.webhook_format === 'kannel')
        return this.store.enqueueIn(tx, {
          message_id: message.id,
          kind: 'mo',
          url: smsServiceUrl(route.webhook_url, route.name, message),
          method: 'GET',
          query: {},
          format: 'kannel-service',
        });
      return this.store.enqueueIn(tx, {
        message_id: message.id,
        kind: 'mo',
        url: route.webhook_url,
        method: 'POST',
        query: moWebhookParams(message, route.webhook_format),
        format: route.webhook_format,
      });
    });
    this.routed.inc({
      connector: message.connector,
      outcome: !route ? 'unrouted' : route.webhook_url && !held ? 'webhook' : 'inbox',
    });
    if (held)
      this.logger.info(
        { inboundId, route: route?.name },
        "the route's account is disabled: kept in its inbox, its URL not called",
      );
    if (!route)
      this.logger.warn(
        { inboundId, to: message.to_addr, connector: message.connector },
        'no MO route takes this inbound message; kept unrouted',
      );
    return queued;
  }

  /** Routes messages whose inbound.received never came (published before a crash, or lost). */
  async sweep(olderThanMs: number): Promise<boolean> {
    let queued = false;
    for (const id of await staleReceivedInbound(this.db, olderThanMs, 500))
      queued = (await this.route(id)) || queued;
    return queued;
  }

  private async routeTable(): Promise<MoRouteRow[]> {
    if (!this.routes || Date.now() - this.routes.at > this.routesTtlMs)
      this.routes = { at: Date.now(), rows: await listMoRoutes(this.db) };
    return this.routes.rows;
  }
}
