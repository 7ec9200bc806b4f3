import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import express, { Router, type RequestHandler } from 'express';
import {
  MetaDataError,
  kannelMaskLevel,
  metaDataTlvs,
  type InterfaceReport,
  type MetaDataTlv,
  type Principal,
  type SmppTlvDefinition,
} from '@smsgw/contracts';
import { asyncRoute, timeOrderedId, toHttpError, type Logger } from '@smsgw/kit';
import { crossSiteGuard } from '../cross-site-guard';
import { gatewayDefaults } from '../defaults';
import type { ParamsCaller } from '../request-caller';
import type { MessageStore, SendAcceptor } from '@smsgw/acceptance';
import { addForm, queryParams, textParam, type CgiParams } from './legacy-params';

/**
 * Kannel's sendsms (docs/compatibility.md § Kannel's sendsms): GET|POST /cgi-bin/sendsms with
 * Kannel's parameters, answers and statuses, over the same guards as /secure/send
 * (edge-guards.ts). tests/compat/kannel-sendsms.test.ts quotes the lines of Kannel's smsbox.c each
 * answer is held to.
 */
export interface KannelSendsmsDeps {
  caller: ParamsCaller;
  accept: SendAcceptor;
  /** Whether a message was accepted under an id, after a receiver's acceptance failed. */
  store: Pick<MessageStore, 'status'>;
  maxBodyBytes: number;
  corsAllowedOrigins: readonly string[];
  logger: Logger;
  /** The `meta-data` keys clients may give (KANNEL_SMPP_TLVS), each an SMPP optional parameter. */
  kannelTlvs: readonly SmppTlvDefinition[];
}

export const KANNEL_SENDSMS_PATH = '/cgi-bin/sendsms';

class KannelError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Kannel reads its numbers with sscanf("%d"): a leading integer, anything after it ignored. */
function intParam(params: CgiParams, name: string): number | undefined {
  const v = textParam(params, name);
  if (v === undefined) return undefined;
  const m = /^\s*([-+]?\d+)/.exec(v);
  return m ? Number(m[1]) : undefined;
}

/** smsbox.c's range checks, its words for each. */
function inRange(
  value: number | undefined,
  min: number,
  max: number,
  message: string,
): number | undefined {
  if (value !== undefined && (value < min || value > max)) throw new KannelError(400, message);
  return value === -1 ? undefined : value;
}

/** An SMPP relative time (YYMMDDhhmmss000R) this many minutes ahead, as `deferred` asks. */
export function relativeSmppTime(minutes: number): string {
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  const two = (n: number): string => String(n).padStart(2, '0');
  const years = Math.floor(days / 365);
  const months = Math.floor((days % 365) / 30);
  return `${two(years)}${two(months)}${two((days % 365) % 30)}${two(hours)}${two(mins)}00000R`;
}

/** The text's octets as `charset` says (UTF-8 unless told; UTF-16BE for UCS-2, Kannel's default). */
function decodeText(octets: Buffer, charset: string | undefined, coding: number): string {
  const label = charset ?? (coding === 2 ? 'utf-16be' : 'utf-8');
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    throw new KannelError(400, 'Charset or body misformed, rejected');
  }
  try {
    return decoder.decode(octets);
  } catch {
    throw new KannelError(400, 'Charset or body misformed, rejected');
  }
}

/** The /secure/send body of one recipient of a sendsms request. */
export function kannelSendBody(
  params: CgiParams,
  to: string,
  tlvs: readonly SmppTlvDefinition[] = [],
): Record<string, unknown> {
  // smsbox.c checks dlr-url and dlr-mask before the other fields: the same error comes first.
  const wish = kannelReportWish(params);
  // The header's octets as sent (url-encoded binary); an empty one is none.
  const udh = params.get('udh')?.length ? params.get('udh') : undefined;
  // userguide: coding "If unset, defaults to 7 bits unless a udh is defined, which sets coding to
  // 8bits."
  const coding =
    inRange(intParam(params, 'coding'), -1, 2, 'Coding field misformed, rejected') ?? (udh ? 1 : 0);
  const mclass = inRange(intParam(params, 'mclass'), -1, 3, 'MClass field misformed, rejected');
  const validity = intParam(params, 'validity');
  if (validity !== undefined && validity < -1)
    throw new KannelError(400, 'Validity field misformed, rejected');
  const deferred = intParam(params, 'deferred');
  if (deferred !== undefined && deferred < -1)
    throw new KannelError(400, 'Deferred field misformed, rejected');
  const priority = intParam(params, 'priority');
  if (priority !== undefined && (priority < 0 || priority > 3))
    throw new KannelError(400, 'Priority field misformed, rejected');
  // smsbox.c: `octstr_len(udh) != octstr_get_char(udh, 0) + 1` → "UDH field misformed, rejected";
  // `octstr_len(udh) > MAX_SMS_OCTETS` → "UDH field is too long, rejected".
  if (udh && udh.length !== udh[0] + 1) throw new KannelError(400, 'UDH field misformed, rejected');
  if (udh && udh.length > 140) throw new KannelError(400, 'UDH field is too long, rejected');
  const octets = params.get('text') ?? Buffer.alloc(0);
  const body: Record<string, unknown> = { to };
  if (coding === 1) {
    // 8-bit: the octets as sent, data coding 4 (SMPP 8-bit binary).
    body['hex_content'] = octets.toString('hex');
    body['coding'] = 4;
  } else {
    body['content'] = decodeText(octets, textParam(params, 'charset'), coding);
    if (coding === 2) body['coding'] = 8;
  }
  const from = textParam(params, 'from');
  if (from !== undefined && from.length > 0) body['from'] = from;
  if (validity !== undefined && validity > 0) body['validity_period'] = validity;
  if (deferred !== undefined && deferred > 0) body['sdt'] = relativeSmppTime(deferred);
  if (priority !== undefined) body['priority'] = priority;
  // mclass 0 is flash; each class goes in data_coding as the dispatcher writes it.
  if (mclass !== undefined) body['message_class'] = mclass;
  // Sent byte for byte in front of the text, with UDHI set (one part; it does not fit: a 400).
  if (udh) body['udh'] = udh.toString('hex');
  const metaData = textParam(params, 'meta-data');
  if (metaData !== undefined && metaData.length > 0) {
    let custom: MetaDataTlv[];
    try {
      custom = metaDataTlvs(metaData, tlvs);
    } catch (err) {
      if (!(err instanceof MetaDataError)) throw err;
      throw new KannelError(400, `Meta-data field misformed, rejected: ${err.message}`);
    }
    if (custom.length > 0) body['custom_tlvs'] = custom;
  }
  Object.assign(body, wish);
  return body;
}

/**
 * The report wish of a sendsms request, as smsbox.c reads `dlr-url` and `dlr-mask` (or their old
 * spellings `dlrurl` and `dlrmask`): a URL called with GET, its placeholders filled in when a
 * report comes (dlr-callbacks.ts), for the events the mask names. A mask that names no event the
 * gateway reports, or no URL, asks for nothing: Kannel would have no URL to call either.
 */
export function kannelReportWish(params: CgiParams): Record<string, unknown> {
  const url = textParam(params, 'dlr-url') ?? textParam(params, 'dlrurl');
  const maskText = params.has('dlr-mask') ? 'dlr-mask' : 'dlrmask';
  const mask = intParam(params, maskText);
  if (url !== undefined && url.length > 0 && !/^https?:\/\//i.test(url))
    throw new KannelError(400, 'DLR-URL field misformed, rejected');
  if (mask !== undefined && (mask < -1 || mask > 63))
    throw new KannelError(400, 'DLR-Mask field misformed, rejected');
  const level = mask === undefined || mask < 0 ? undefined : kannelMaskLevel(mask);
  if (url === undefined || url.length === 0 || level === undefined) return {};
  return { dlr_url: url, dlr_level: level, dlr_method: 'GET' };
}

/** The dlr-mask a request's report wish was built from (kannelReportWish), -1 for none. */
function kannelMask(params: CgiParams): number {
  return intParam(params, params.has('dlr-mask') ? 'dlr-mask' : 'dlrmask') ?? -1;
}

/** A text answer: the status and body Kannel gives. */
export interface TextAnswer {
  status: number;
  text: string;
}

/**
 * One sendsms request answered, from its URL and (POST) form body: express's route and the hot
 * route for GET (legacy-hot-route.ts) both call it, so both answer alike.
 */
export type SendsmsAnswerer = (
  req: IncomingMessage,
  form: Buffer | undefined,
) => Promise<TextAnswer>;

export function kannelSendsmsAnswerer(deps: KannelSendsmsDeps): SendsmsAnswerer {
  const paramsOf = (url: string | undefined, form: Buffer | undefined): CgiParams => {
    const params = queryParams(url ?? '');
    if (!params) throw new KannelError(400, 'Too many arguments, rejected');
    if (form !== undefined && form.length > 0 && !addForm(params, form))
      throw new KannelError(400, 'Too many arguments, rejected');
    return params;
  };

  return async (req, form) => {
    try {
      const params = paramsOf(req.url, form);
      // default_authorise_user: username or user, password or pass.
      const username = textParam(params, 'username') ?? textParam(params, 'user');
      const password = textParam(params, 'password') ?? textParam(params, 'pass');
      const principal = await deps.caller(req, username, password).catch((err: unknown) => {
        // Unknown name, wrong password, disabled account, login limit: Kannel has one answer.
        if (toHttpError(err).status >= 500) throw err;
        throw new KannelError(403, 'Authorization failed for sendsms');
      });
      const to = textParam(params, 'to');
      if (to === undefined) throw new KannelError(400, 'Missing receiver number, rejected');
      if (to.length === 0)
        throw new KannelError(400, 'Empty receiver number not allowed, rejected');
      // Several receivers separated by spaces, each once (smsbox.c splits `to` on blanks).
      const receivers = [...new Set(to.split(/\s+/).filter((r) => r.length > 0))];
      if (receivers.length === 0)
        throw new KannelError(400, 'Empty receiver number not allowed, rejected');
      const bodies = receivers.map((r) => kannelSendBody(params, r, deps.kannelTlvs));
      const report: InterfaceReport = { dlr_style: 'kannel', dlr_mask: kannelMask(params) };
      if (bodies.length === 1) {
        await deps.accept(principal, bodies[0], { entry: 'kannel-sendsms', report });
        return { status: 202, text: '0: Accepted for delivery' };
      }
      const denied: string[] = [];
      const failed: string[] = [];
      let firstError: unknown;
      const retryUntil = Date.now() + gatewayDefaults.sendsmsRetry.budgetMs;
      for (const [i, one] of bodies.entries()) {
        try {
          await acceptReceiver(deps, principal, one, report, retryUntil);
        } catch (err) {
          (toHttpError(err).status >= 500 ? failed : denied).push(receivers[i]);
          firstError ??= err;
        }
      }
      if (firstError === undefined) return { status: 202, text: '0: Accepted for delivery' };
      deps.logger.warn(
        { err: firstError, denied: denied.length, failed: failed.length },
        'sendsms: receivers not sent',
      );
      return severalAnswer(receivers.length, denied, failed, firstError);
    } catch (err) {
      return refusal(err, deps.logger);
    }
  };
}

/**
 * One of several receivers, tried again while it fails for now (gatewayDefaults.sendsmsRetry):
 * a 202 that names it failed is lost on Kannel's clients, which read only the status. All tries
 * give the message one id, so a try whose commit went through although it failed is found
 * accepted, never accepted twice. A refusal for good is not tried again.
 */
async function acceptReceiver(
  deps: KannelSendsmsDeps,
  principal: Principal,
  body: Record<string, unknown>,
  report: InterfaceReport,
  retryUntil: number,
): Promise<void> {
  const id = timeOrderedId();
  for (const backoffMs of [...gatewayDefaults.sendsmsRetry.backoffMs, undefined]) {
    try {
      await deps.accept(principal, body, { entry: 'kannel-sendsms', report, id });
      return;
    } catch (err) {
      if (toHttpError(err).status < 500) throw err;
      const accepted = await deps.store.status(principal.accountId, id).catch(() => undefined);
      if (accepted) return;
      if (backoffMs === undefined || Date.now() + backoffMs > retryUntil) throw err;
      await sleep(backoffMs);
    }
  }
}

/**
 * The answer to several receivers of which some were not sent. Once one was accepted (and
 * charged), the answer is a 202 that names the others, as smsbox.c's "Sent. Denied receivers are:
 * …": a 5xx would have the client send them all again, the accepted ones twice. Those refused for
 * good are "denied", those that failed for now "failed" (they alone may be sent again). With none
 * accepted, nothing was sent: the answer is one receiver's, and a 500 as Kannel's "Sending failed."
 * when some failed for now.
 */
function severalAnswer(
  receivers: number,
  denied: readonly string[],
  failed: readonly string[],
  firstError: unknown,
): TextAnswer {
  if (denied.length + failed.length < receivers) {
    const lists = [
      ...(denied.length > 0 ? [`Denied receivers are: ${denied.join(' ')}`] : []),
      ...(failed.length > 0 ? [`Failed receivers are: ${failed.join(' ')}`] : []),
    ];
    return { status: 202, text: ['0: Accepted for delivery', ...lists].join('. ') };
  }
  if (failed.length === 0) return refusal(firstError);
  return { status: 500, text: `Sending failed. Failed receivers are: ${failed.join(' ')}` };
}

/** A request, or its only receiver, not sent: Kannel's words for why. */
function refusal(err: unknown, logger?: Logger): TextAnswer {
  if (err instanceof KannelError) return { status: err.status, text: err.message };
  const http = toHttpError(err);
  if (http.status >= 500) {
    logger?.warn({ err }, 'sendsms failed');
    return { status: 503, text: 'Temporal failure, try again later.' };
  }
  // Not routable, no credit, refused sender or recipient: Kannel's permanent refusal.
  if (
    [
      'NO_ROUTE',
      'NO_PRICE',
      'INSUFFICIENT_CREDIT',
      'QUOTA_EXCEEDED',
      'RECIPIENT_OPTED_OUT',
      'SENDER_NOT_ALLOWED',
      'ACCOUNT_DISABLED',
      'FORBIDDEN',
    ].includes(http.code)
  ) {
    return { status: 403, text: `Not routable. Do not try again. (${http.message})` };
  }
  return { status: http.status, text: `${http.message}, rejected` };
}

export function createKannelSendsmsRoutes(deps: KannelSendsmsDeps): Router {
  const router = Router();
  const guards = crossSiteGuard(deps.corsAllowedOrigins);
  const body = express.raw({ type: () => true, limit: deps.maxBodyBytes });
  const answer = kannelSendsmsAnswerer(deps);

  const sendsms: RequestHandler = asyncRoute(async (req, res) => {
    const { status, text } = await answer(req, Buffer.isBuffer(req.body) ? req.body : undefined);
    res.status(status).type('text/plain').send(text);
  });

  router.get(KANNEL_SENDSMS_PATH, ...guards, body, sendsms);
  router.post(KANNEL_SENDSMS_PATH, ...guards, body, sendsms);
  return router;
}
