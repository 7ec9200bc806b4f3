import type { IncomingHttpHeaders } from 'node:http';
import { IDEMPOTENCY_KEY_HEADER } from '@smsgw/contracts';
import { isJsonMediaType, isPlainJsonBody } from '@smsgw/kit';

/**
 * The guards every way in to sending runs, in order. One list, so that a new entry point (another
 * protocol, an SMPP server) is held to all of them, and an exemption is written down with its reason
 * instead of being a check nobody copied. tests/compat/edge-guards.test.ts drives each entry point
 * against each guard it runs.
 */
export const EDGE_GUARDS = {
  credentials: 'credentials checked by auth, behind its login limits',
  account: 'the account exists and is not disabled',
  'cross-site': 'a browser request from another site is refused',
  'body-limit': 'the request body is read up to MAX_BODY_BYTES (MAX_BATCH_BYTES for batches)',
  idempotency: 'a repeated Idempotency-Key replays its first answer',
  sender: "the account's sender rules",
  'opt-out': "the account's opt-out list",
  routing: 'an MT route takes the message',
  credit: 'the account has the credit or quota for it',
} as const;

export type EdgeGuard = keyof typeof EDGE_GUARDS;

/** A guard an entry point runs, or why it does not apply there. */
export type GuardUse = 'runs' | { exempt: string };

export interface EntryPoint {
  methods: readonly ('GET' | 'POST')[];
  path: string;
  /** Every guard, each either run or exempted with its reason (the type asks for all of them). */
  guards: Record<EdgeGuard, GuardUse>;
}

const ALL_RUN: Record<EdgeGuard, 'runs'> = {
  credentials: 'runs',
  account: 'runs',
  'cross-site': 'runs',
  'body-limit': 'runs',
  idempotency: 'runs',
  sender: 'runs',
  'opt-out': 'runs',
  routing: 'runs',
  credit: 'runs',
};

const NO_IDEMPOTENCY_KEY = {
  exempt:
    'the protocol has no Idempotency-Key; its clients retry as they would with that gateway (docs/compatibility.md)',
};

/** The ways in to sending, each with the guards it runs. */
export const ENTRY_POINTS = {
  'rest-send': { methods: ['POST'], path: '/secure/send', guards: ALL_RUN },
  /** POST /secure/send ahead of express: the guards express runs as layers are the HOT_PATH_PASSES below. */
  'hot-send': { methods: ['POST'], path: '/secure/send', guards: ALL_RUN },
  'rest-sendbatch': { methods: ['POST'], path: '/secure/sendbatch', guards: ALL_RUN },
  'jasmin-send': {
    methods: ['GET', 'POST'],
    path: '/send',
    guards: { ...ALL_RUN, idempotency: NO_IDEMPOTENCY_KEY },
  },
  'kannel-sendsms': {
    methods: ['GET', 'POST'],
    path: '/cgi-bin/sendsms',
    guards: { ...ALL_RUN, idempotency: NO_IDEMPOTENCY_KEY },
  },
} as const satisfies Record<string, EntryPoint>;

export type EntryPointName = keyof typeof ENTRY_POINTS;

const IDEMPOTENCY_KEY = IDEMPOTENCY_KEY_HEADER.toLowerCase();

/**
 * For the guards express runs as layers in front of /secure/send: whether that layer would pass the
 * request on untouched. The hot path takes a request only when every one of them would; any other
 * goes to express, where the layer runs. The other guards run on both paths alike (the caller's
 * check, the send acceptor).
 */
export const HOT_PATH_PASSES: Record<
  Extract<EdgeGuard, 'cross-site' | 'body-limit' | 'idempotency'>,
  (headers: IncomingHttpHeaders, maxBodyBytes: number) => boolean
> = {
  'cross-site': (headers) =>
    headers.origin === undefined && headers['sec-fetch-site'] === undefined,
  'body-limit': (headers, maxBodyBytes) =>
    isJsonMediaType(headers['content-type']) && isPlainJsonBody(headers, maxBodyBytes),
  idempotency: (headers) => headers[IDEMPOTENCY_KEY] === undefined,
};

const HOT_PATH_CHECKS = Object.values(HOT_PATH_PASSES);

/** Whether every layer express would run before /secure/send passes this request untouched. */
export function hotPathMayTake(headers: IncomingHttpHeaders, maxBodyBytes: number): boolean {
  for (const passes of HOT_PATH_CHECKS) if (!passes(headers, maxBodyBytes)) return false;
  return true;
}
