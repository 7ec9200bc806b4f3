import type { IncomingMessage } from 'node:http';
import express, { Router, type RequestHandler, type Response } from 'express';
import type { Principal } from '@smsgw/contracts';
import { asyncRoute, HttpError, parseInput, toHttpError, type Logger } from '@smsgw/kit';
import type { MtRouter } from '@smsgw/routing';
import { SendRequestSchema } from '@smsgw/contracts';
import { crossSiteGuard } from '../cross-site-guard';
import {
  planMessage,
  routeOrRefuse,
  type MessageStore,
  type SendAcceptor,
} from '@smsgw/acceptance';
import type { ParamsCaller } from '../request-caller';
import { addForm, queryParams, textParam, type CgiParams } from './legacy-params';

/**
 * Jasmin's HTTP interface (docs/compatibility.md § Jasmin's HTTP interface): GET|POST /send,
 * GET /balance, GET /rate, with Jasmin's parameter checks, wording and statuses, over the same
 * guards as /secure/send (edge-guards.ts). Its source is quoted where each rule is held to it, in
 * tests/compat/jasmin-http.test.ts.
 */
export interface JasminHttpDeps {
  caller: ParamsCaller;
  accept: SendAcceptor;
  store: MessageStore;
  router: MtRouter;
  maxBodyBytes: number;
  maxParts: number;
  corsAllowedOrigins: readonly string[];
  logger: Logger;
}

interface Field {
  optional: boolean;
  pattern?: RegExp;
}

// Jasmin's own patterns (send.py), in its order: the order decides which error a request gets.
const SEND_FIELDS: Record<string, Field> = {
  to: { optional: false, pattern: /^\+?\d+$/ },
  from: { optional: true },
  coding: { optional: true, pattern: /^(0|1|2|3|4|5|6|7|8|9|10|13|14)$/ },
  // Jasmin's are 1 to 16 characters; ours may be longer (docs/compatibility.md).
  username: { optional: false, pattern: /^.{1,256}$/s },
  password: { optional: false, pattern: /^.{1,256}$/s },
  priority: { optional: true, pattern: /^[0-3]$/ },
  sdt: { optional: true, pattern: /^\d{2}\d{2}\d{2}\d{2}\d{2}\d{2}\d{1}\d{2}(\+|-|R)$/ },
  'validity-period': { optional: true, pattern: /^\d+$/ },
  dlr: { optional: false, pattern: /^(yes|no)$/ },
  'dlr-url': { optional: true, pattern: /^(http|https):\/\/.*$/s },
  'dlr-level': { optional: true, pattern: /^[1-3]$/ },
  'dlr-method': { optional: true, pattern: /^(get|post)$/i },
  tags: { optional: true, pattern: /^([-a-zA-Z0-9,])*$/ },
  content: { optional: true },
  'hex-content': { optional: true },
  custom_tlvs: { optional: true },
};

// rate.py: as /send's, without sdt and the delivery report.
const RATE_FIELDS: Record<string, Field> = Object.fromEntries(
  Object.entries(SEND_FIELDS).filter(
    ([name]) => !['sdt', 'dlr', 'dlr-url', 'dlr-level', 'dlr-method', 'custom_tlvs'].includes(name),
  ),
);

const BALANCE_FIELDS: Record<string, Field> = {
  username: SEND_FIELDS['username'],
  password: SEND_FIELDS['password'],
};

/** Jasmin's refusal: its status and its words. */
class JasminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * UrlArgsValidator.validate as Jasmin runs it: the arguments in the order given, the first unknown
 * one refused, and at the first known one every field checked in the fields' order.
 */
function validateArgs(args: Map<string, string>, fields: Record<string, Field>): void {
  if (args.size === 0)
    throw new JasminError(
      400,
      'Mandatory arguments not found, please refer to the HTTPAPI specifications.',
    );
  for (const arg of args.keys()) {
    if (!(arg in fields)) throw new JasminError(400, `Argument [${arg}] is unknown.`);
    for (const [name, field] of Object.entries(fields)) {
      const value = args.get(name);
      if (value !== undefined) {
        if (field.pattern && !field.pattern.test(value))
          throw new JasminError(400, `Argument [${name}] has an invalid value: [${value}].`);
      } else if (!field.optional) {
        throw new JasminError(400, `Mandatory argument [${name}] is not found.`);
      }
    }
    return;
  }
}

/** Our refusals in Jasmin's statuses (errors.py): auth and charging 403, routing 412, the rest 400. */
function asJasmin(err: unknown, username: string | undefined): JasminError {
  if (err instanceof JasminError) return err;
  const http = toHttpError(err);
  switch (http.code) {
    case 'UNAUTHORIZED':
      return new JasminError(403, `Authentication failure for username:${username ?? ''}`);
    case 'ACCOUNT_DISABLED':
    case 'FORBIDDEN':
    case 'RATE_LIMITED':
    case 'INSUFFICIENT_CREDIT':
    case 'QUOTA_EXCEEDED':
      return new JasminError(403, http.message);
    // Jasmin prices by route: a destination its customer is not priced for has no route there.
    case 'NO_ROUTE':
    case 'NO_PRICE':
      return new JasminError(412, 'No route found');
    default:
      return new JasminError(http.status, http.message);
  }
}

/** The arguments of a request, as Jasmin's twisted resource sees them (JSON bodies too, as send.py reads them). */
function argsOf(url: string | undefined, body: Buffer | undefined): Map<string, string> {
  const params: CgiParams = queryParams(url ?? '') ?? new Map<string, Buffer>();
  if (body !== undefined && body.length > 0) {
    if (!addForm(params, body)) throw new JasminError(400, 'Too many arguments.');
  }
  const args = new Map<string, string>();
  for (const name of params.keys()) args.set(name, textParam(params, name) ?? '');
  return args;
}

function jsonArgs(body: unknown): Map<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new JasminError(400, 'Request body is not a JSON object');
  return new Map(Object.entries(body as Record<string, unknown>));
}

/** Jasmin's defaults (send.py): a dlr-url or dlr-level asks for a report; level 1 and POST unless said. */
function withDlrDefaults(args: Map<string, string>): void {
  if (args.has('dlr-url') || args.has('dlr-level')) args.set('dlr', 'yes');
  if (!args.has('dlr')) args.set('dlr', 'no');
  if (args.get('dlr') === 'yes') {
    if (!args.has('dlr-level')) args.set('dlr-level', '1');
    if (!args.has('dlr-method')) args.set('dlr-method', 'POST');
  }
  const method = args.get('dlr-method');
  if (method !== undefined) args.set('dlr-method', method.toUpperCase());
}

/** The message Jasmin would build, as a /secure/send body. */
export function jasminSendBody(args: Map<string, string>, tlvs: unknown): Record<string, unknown> {
  const body: Record<string, unknown> = { to: args.get('to') };
  const copy = (from: string, to: string, as?: (v: string) => unknown): void => {
    const v = args.get(from);
    if (v !== undefined) body[to] = as ? as(v) : v;
  };
  copy('from', 'from');
  copy('content', 'content');
  copy('hex-content', 'hex_content');
  copy('coding', 'coding', Number);
  copy('priority', 'priority', Number);
  copy('sdt', 'sdt');
  copy('validity-period', 'validity_period', Number);
  copy('tags', 'tags', (v) => v.split(',').filter((t) => t.length > 0));
  // Without a URL Jasmin asks the SMSC for a receipt it tells nobody of: here, no report at all.
  if (args.get('dlr') === 'yes' && args.has('dlr-url')) {
    body['dlr'] = 'yes';
    copy('dlr-url', 'dlr_url');
    copy('dlr-level', 'dlr_level', Number);
    copy('dlr-method', 'dlr_method');
  }
  if (tlvs !== undefined) body['custom_tlvs'] = tlvs;
  return body;
}

/** A text answer: the status and body Jasmin gives. */
export interface JasminTextAnswer {
  status: number;
  text: string;
}

/**
 * One /send request answered, from its URL and body: express's route and the hot route for GET
 * (legacy-hot-route.ts) both call it, so both answer alike.
 */
export type JasminSendAnswerer = (
  req: IncomingMessage,
  body: Buffer | undefined,
) => Promise<JasminTextAnswer>;

export function jasminSendAnswerer(deps: JasminHttpDeps): JasminSendAnswerer {
  return async (req, body) => {
    let username: string | undefined;
    try {
      let args: Map<string, string>;
      let tlvs: unknown;
      if ((req.headers['content-type'] ?? '').split(';')[0].trim() === 'application/json') {
        const raw = body ? body.toString('utf8') : '';
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch {
          throw new JasminError(400, 'Request body is not valid JSON');
        }
        const json = jsonArgs(parsed);
        tlvs = json.get('custom_tlvs');
        json.delete('custom_tlvs');
        args = new Map(
          [...json].map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
        );
        if (tlvs !== undefined) args.set('custom_tlvs', '');
      } else {
        args = argsOf(req.url, body);
        const form = args.get('custom_tlvs');
        if (form !== undefined) tlvs = form;
      }
      username = args.get('username');
      args.delete('custom_tlvs');
      withDlrDefaults(args);
      validateArgs(args, SEND_FIELDS);
      if (!args.has('content') && !args.has('hex-content'))
        throw new JasminError(400, 'content or hex-content not present.');
      if (args.has('content') && args.has('hex-content'))
        throw new JasminError(400, 'content and hex-content cannot be used both in same request.');
      const principal = await deps.caller(req, username, args.get('password'));
      // Reported as Jasmin's DLRThrower does: the receiver answers ACK/Jasmin (dlr-callbacks.ts).
      const accepted = await deps.accept(principal, jasminSendBody(args, tlvs), {
        entry: 'jasmin-http',
        report: { dlr_style: 'jasmin' },
      });
      return { status: 200, text: `Success "${accepted.id}"` };
    } catch (err) {
      const refusal = asJasmin(err, username);
      if (refusal.status >= 500) deps.logger.warn({ err }, 'Jasmin HTTP request failed');
      return { status: refusal.status, text: `Error "${refusal.message}"` };
    }
  };
}

export function createJasminHttpRoutes(deps: JasminHttpDeps): Router {
  const router = Router();
  const guards = crossSiteGuard(deps.corsAllowedOrigins);
  // Forms and JSON are read as octets up to the body limit; a larger body is a 413 before any work.
  const body = express.raw({ type: () => true, limit: deps.maxBodyBytes });

  const answerSend = jasminSendAnswerer(deps);
  const send: RequestHandler = asyncRoute(async (req, res) => {
    const reply = await answerSend(req, Buffer.isBuffer(req.body) ? req.body : undefined);
    res.status(reply.status).type('text/plain').send(reply.text);
  });

  router.get('/send', ...guards, body, send);
  router.post('/send', ...guards, body, send);

  router.get(
    '/balance',
    ...guards,
    asyncRoute(async (req, res) => {
      const args = argsOf(req.url, Buffer.isBuffer(req.body) ? req.body : undefined);
      const username = args.get('username');
      try {
        validateArgs(args, BALANCE_FIELDS);
        const principal = await deps.caller(req, username, args.get('password'));
        const balance = await deps.store.balance(principal.accountId);
        if (!balance) throw HttpError.unauthorized();
        // balance.py: 'ND' for no limit, numbers otherwise.
        const value = (v: string): number | string =>
          /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : 'ND';
        res
          .status(200)
          .type('application/json')
          .send(
            JSON.stringify({
              balance: value(balance.balance),
              sms_count: value(balance.sms_count),
            }),
          );
      } catch (err) {
        answer(res, asJasmin(err, username), deps.logger, 'json');
      }
    }),
  );

  router.get(
    '/rate',
    ...guards,
    asyncRoute(async (req, res) => {
      const args = argsOf(req.url, Buffer.isBuffer(req.body) ? req.body : undefined);
      const username = args.get('username');
      try {
        // rate.py: coding 0 and empty content unless given.
        if (!args.has('hex-content') && !args.has('content')) args.set('content', '');
        validateArgs(args, RATE_FIELDS);
        if (args.has('content') && args.has('hex-content'))
          throw new JasminError(
            400,
            'content and hex-content cannot be used both in same request.',
          );
        const principal: Principal = await deps.caller(req, username, args.get('password'));
        const sendBody = jasminSendBody(args, undefined);
        // An empty text is one part of nothing; the schema wants some content to plan.
        if (sendBody['content'] === '') sendBody['content'] = ' ';
        const request = parseInput(SendRequestSchema, sendBody);
        const plan = planMessage(request, deps.maxParts);
        const routing = routeOrRefuse(deps.router, {
          to: request.to,
          accountUsername: principal.username,
          accountId: principal.accountId,
          from: request.from ?? null,
          tags: request.tags,
        });
        const price = await deps.store.price(principal.accountId, plan.segments, routing.price);
        if (!price) throw HttpError.unauthorized();
        res
          .status(200)
          .type('application/json')
          .send(JSON.stringify({ unit_rate: Number(price.rate), submit_sm_count: plan.segments }));
      } catch (err) {
        answer(res, asJasmin(err, username), deps.logger, 'json');
      }
    }),
  );
  return router;
}

/** send.py answers `Error "<reason>"` as text; balance.py and rate.py the reason as a JSON string. */
function answer(res: Response, err: JasminError, logger: Logger, as: 'text' | 'json'): void {
  if (err.status >= 500) logger.warn({ err }, 'Jasmin HTTP request failed');
  if (res.headersSent) return;
  res.status(err.status);
  if (as === 'text') res.type('text/plain').send(`Error "${err.message}"`);
  else res.type('application/json').send(JSON.stringify(err.message));
}
