import { withoutUnusable, type Principal } from '@smsgw/contracts';
import { timeOrderedId, type Db, type Logger } from '@smsgw/kit';
import {
  claimSmsServiceReply,
  findInboundMessage,
  findSmsServiceReply,
  isAccountDisabled,
  isSmsServiceReplyEcho,
  listMoRoutes,
  type InboundMessageRow,
  type MoRouteRow,
  type SmsServiceReplyRow,
} from '@smsgw/store';
import type { Counter } from 'prom-client';
import type { CallbackOutcome } from './callback-sender';
import { notifierDefaults } from './defaults';
import type { SuppressedReason } from './metrics';
import { KANNEL_REPLIES, oneSms, serviceReplyText } from './sms-service-reply-text';

/** /secure/send's acceptance (credit, rules, routing) as the replies use it. */
export interface ReplyAcceptance {
  /** Accepts one MT message of the account under the id given: once, however often asked. */
  accept(principal: Principal, body: unknown, id: string): Promise<{ id: string }>;
  /** Whether the account has a message of that id (the reply was accepted). */
  exists(accountId: string, id: string): Promise<boolean>;
}

export interface SmsServiceReplyLimits {
  /** Replies a route sends one number within a minute at most (KANNEL_REPLIES_PER_MINUTE). */
  perMinute: number;
}

/** An inbound message an sms-service route took for an account, and replies to. */
interface ReplyTarget {
  message: InboundMessageRow;
  route: MoRouteRow;
  accountId: string;
}

/**
 * Sends an sms-service's answer back to the subscriber as Kannel does by default: from the number
 * the message was sent to, to its sender, one SMS at most, an empty answer as Kannel's empty
 * message, from the account of the route that took it and charged as any message of that account.
 * A route whose `kannel_reply` is off sends nothing. Each reply is tied to its inbound message
 * before it is accepted (sms_service_replies), so a delivery that runs again sends it once; and it
 * is not sent while the account is disabled, to a message that is one of our replies come back,
 * nor past the route's replies per minute to one number.
 */
export class SmsServiceReplies {
  constructor(
    private readonly db: Db,
    private readonly acceptance: ReplyAcceptance,
    private readonly logger: Logger,
    private readonly suppressed: Counter<'reason'>,
    private readonly limits: SmsServiceReplyLimits,
  ) {}

  /**
   * After the service was called (or could not be): `settled` once the reply was sent, refused or
   * suppressed; `unrecorded` when what to reply could not be decided and tied to the message (the
   * database failed or refused it). Taken again, the attempt would call the service again, and
   * again for as long as the database refuses the reply: the caller gives it up instead.
   */
  async answer(inboundId: string, outcome: CallbackOutcome): Promise<'settled' | 'unrecorded'> {
    let decided: { reply: SmsServiceReplyRow; target: ReplyTarget } | undefined;
    try {
      decided = await this.decide(inboundId, outcome);
    } catch (err) {
      this.logger.error({ err, inboundId }, 'sms-service reply not recorded; no reply is sent');
      return 'unrecorded';
    }
    if (decided) await this.send(decided.reply, decided.target);
    return 'settled';
  }

  /** The reply tied to the message (an earlier delivery's, or one claimed now), or none to send. */
  private async decide(
    inboundId: string,
    outcome: CallbackOutcome,
  ): Promise<{ reply: SmsServiceReplyRow; target: ReplyTarget } | undefined> {
    const target = await this.replyTarget(inboundId);
    if (!target) return undefined;
    const { message, route } = target;
    // Disabled while its service was being called: nothing sent, nothing charged.
    if (await isAccountDisabled(this.db, target.accountId))
      return this.suppress('account_disabled', message, route);
    // Decided by an earlier delivery of this message: that reply, never a second one.
    const earlier = await findSmsServiceReply(this.db, inboundId);
    if (earlier) return { reply: earlier, target };
    if (
      message.content !== null &&
      (await isSmsServiceReplyEcho(
        this.db,
        { from: message.from_addr, to: message.to_addr, content: message.content },
        notifierDefaults.smsService.echoWindowMs,
      ))
    )
      return this.suppress('own_reply', message, route);
    // The service's text as it came, but for the characters no message may hold: Postgres text
    // cannot store a NUL, and /secure/send would refuse the others.
    const text = withoutUnusable(serviceReplyText(outcome), { lineBreaks: true });
    const wanted: SmsServiceReplyRow = {
      inbound_id: inboundId,
      message_id: timeOrderedId(),
      mo_route: route.name,
      from_addr: message.to_addr,
      to_addr: message.from_addr,
      content: oneSms(text.length === 0 ? KANNEL_REPLIES.empty : text),
    };
    const claimed =
      (await this.db.transaction((tx) =>
        claimSmsServiceReply(tx, wanted, {
          replies: this.limits.perMinute,
          windowMs: notifierDefaults.smsService.rateWindowMs,
        }),
      )) ?? (await findSmsServiceReply(this.db, inboundId));
    if (!claimed) return this.suppress('rate', message, route);
    return { reply: claimed, target };
  }

  /**
   * Before the service is called: true when an earlier delivery of this message had its answer
   * already and tied a reply to it (the notifier stopped before it recorded the attempt). That
   * reply is sent now unless it was, and the service is not called again.
   */
  async resume(inboundId: string): Promise<boolean> {
    const earlier = await findSmsServiceReply(this.db, inboundId);
    if (!earlier) return false;
    const target = await this.replyTarget(inboundId);
    if (target && !(await isAccountDisabled(this.db, target.accountId)))
      await this.send(earlier, target);
    return true;
  }

  /** The message, its route and account, when the route is an sms-service that replies. */
  private async replyTarget(inboundId: string): Promise<ReplyTarget | undefined> {
    const message = await findInboundMessage(this.db, inboundId);
    if (!message?.mo_route || !message.account_id) return undefined;
    const route = (await listMoRoutes(this.db)).find((r) => r.name === message.mo_route);
    if (!route || route.webhook_format !== 'kannel' || !route.kannel_reply) return undefined;
    return { message, route, accountId: message.account_id };
  }

  private async send(
    reply: SmsServiceReplyRow,
    { message, route, accountId }: ReplyTarget,
  ): Promise<string | undefined> {
    const log = { inboundId: message.id, replyId: reply.message_id, route: route.name };
    if (await this.acceptance.exists(accountId, reply.message_id)) return reply.message_id;
    try {
      await this.acceptance.accept(
        { accountId, username: route.username, via: 'basic' },
        { to: reply.to_addr, from: reply.from_addr, content: reply.content },
        reply.message_id,
      );
      this.logger.info(log, 'sms-service answer sent back as a reply');
      return reply.message_id;
    } catch (err) {
      // Another notifier accepted it at the same moment: the id let only one of them.
      if (await this.acceptance.exists(accountId, reply.message_id)) return reply.message_id;
      // Refused like any message of the account (credit, sender rules, an opted-out number).
      this.logger.warn({ ...log, err }, 'sms-service reply not sent');
      return undefined;
    }
  }

  private suppress(
    reason: SuppressedReason,
    message: InboundMessageRow,
    route: MoRouteRow,
  ): undefined {
    this.suppressed.inc({ reason });
    this.logger.warn(
      { inboundId: message.id, route: route.name, from: message.from_addr, reason },
      'sms-service reply suppressed',
    );
    return undefined;
  }
}
