import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { SmppSimulator } from './smpp-simulator';

/** POST /originate: a mobile-originated message for the simulator to deliver (OriginateRequest). */
export const OriginateRequestSchema = z
  .object({
    from: z.string().regex(/^\+?[0-9A-Za-z]{1,20}$/),
    to: z.string().regex(/^\+?[0-9]{1,20}$/),
    text: z.string().max(10_000).optional(),
    hex: z
      .string()
      .regex(/^([0-9a-fA-F]{2}){0,10000}$/)
      .optional(),
    dataCoding: z.number().int().min(0).max(255).optional(),
    partBytes: z.number().int().min(1).max(254).optional(),
    concatenation: z.enum(['udh8', 'udh16', 'sar']).optional(),
    ref: z.number().int().min(0).max(65535).optional(),
    order: z.array(z.number().int().min(1).max(255)).max(255).optional(),
    withhold: z.array(z.number().int().min(1).max(255)).max(255).optional(),
    times: z.number().int().min(1).max(5).optional(),
  })
  .strict()
  .refine((r) => (r.text === undefined) !== (r.hex === undefined), 'give text or hex');

const MAX_BODY = 64 * 1024;

export interface SimulatorControlOptions {
  /** SIM_CONTROL_TOKEN: a caller presenting `Authorization: Bearer <token>` may use the control. */
  token?: string | undefined;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

function isLoopbackPeer(address: string | undefined): boolean {
  return address !== undefined && /^(::ffff:)?127\.|^::1$/.test(address);
}

/**
 * Whether a request may read or drive the simulator: what it received is every message the
 * gateway sent (one-time passwords among them). With a token configured, only callers presenting
 * it; without one, only callers on this machine.
 */
export function controlAllowed(
  remoteAddress: string | undefined,
  authorization: string | undefined,
  token: string | undefined,
): boolean {
  if (token === undefined) return isLoopbackPeer(remoteAddress);
  const presented = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
  return presented !== undefined && timingSafeEqual(digest(presented), digest(token));
}

/**
 * The simulator's HTTP control endpoint: `GET /healthz`, `GET /received` (what arrived),
 * `POST /reset`, and `POST /originate` (a reply from a handset, delivered over the SMPP session
 * with every part's answer in the response), so a demo or a test exercises the real receiving path.
 * All but /healthz answer only as `controlAllowed` says.
 */
export function simulatorControl(simulator: SmppSimulator, options: SimulatorControlOptions = {}) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const bad = (message: string) => reply(400, { detail: { code: 'INVALID_PARAMETER', message } });
    if (req.method === 'GET' && req.url === '/healthz') return reply(200, { status: 'ok' });
    if (!controlAllowed(req.socket.remoteAddress, req.headers.authorization, options.token)) {
      res.setHeader('www-authenticate', 'Bearer');
      return reply(401, {
        detail: {
          code: 'UNAUTHORIZED',
          message: 'the simulator control needs SIM_CONTROL_TOKEN, or a caller on its own machine',
        },
      });
    }
    if (req.method === 'GET' && req.url === '/received')
      return reply(200, { count: simulator.received.length, messages: simulator.messages() });
    if (req.method === 'POST' && req.url === '/reset') {
      simulator.reset();
      return reply(200, { status: 'reset' });
    }
    if (req.method === 'POST' && req.url === '/originate') {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
        if (body.length > MAX_BODY) req.destroy();
      });
      req.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          return bad('the body is not JSON');
        }
        const parsed = OriginateRequestSchema.safeParse(json);
        if (!parsed.success) return bad(parsed.error.issues.map((i) => i.message).join('; '));
        simulator.originate(parsed.data).then(
          (statuses) => reply(200, { statuses }),
          (err: unknown) =>
            reply(409, {
              detail: {
                code: 'CONFLICT',
                message: err instanceof Error ? err.message : String(err),
              },
            }),
        );
      });
      return;
    }
    reply(404, { detail: { code: 'NOT_FOUND', message: `No route for ${req.method} ${req.url}` } });
  };
}
