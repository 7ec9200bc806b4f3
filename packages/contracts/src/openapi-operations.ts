/**
 * The OpenAPI paths of what operators watch and control: batches that stopped moving, admin tokens
 * with their scopes, the audit trail of admin changes, the CDR export and the message statistics.
 */
import type { OpenApiParts } from './openapi-inbound';
import { STALL_DEFAULTS, STALL_REASONS } from './batch-stalls';
import { ADMIN_SCOPES } from './scopes';
import { STATS_DEFAULTS, STATS_GROUPS, STATS_PERIODS } from './stats';
import { CDR_COLUMNS, CDR_FORMATS, CDR_PER } from './cdr';
import { SEARCH_DEFAULTS } from './message-search';

type Json = Record<string, unknown>;

const query = (name: string, description: string, schema: Json = { type: 'string' }): Json => ({
  name,
  in: 'query',
  required: false,
  schema,
  description,
});

const cdrTime = (name: string, description: string): Json => ({
  name,
  in: 'query',
  required: true,
  schema: { type: 'string', format: 'date-time' },
  description,
});

const statsParameters = (groups: readonly string[]): Json[] => [
  query(
    'since',
    `Start (ISO 8601 with offset), rounded down to the hour; default: ${STATS_DEFAULTS.sinceHours} hours before until. The range may be at most SEARCH_MAX_DAYS (default ${SEARCH_DEFAULTS.maxDays})`,
    { type: 'string', format: 'date-time' },
  ),
  query(
    'until',
    'End (ISO 8601 with offset), rounded down to the hour: hours that begin before it; default: the end of the current hour',
    { type: 'string', format: 'date-time' },
  ),
  query('period', 'Rows by UTC hour or UTC day', {
    type: 'string',
    enum: [...STATS_PERIODS],
    default: 'hour',
  }),
  query('group', 'A column beside the state to group by', {
    type: 'string',
    enum: [...groups],
  }),
  query('connector', 'Messages sent through this connector'),
  query('route', 'Messages the MT route of this name took'),
  query('country', "The destination's E.164 calling code, such as 41"),
];

const statsSummary = (whose: string): string =>
  `${whose} messages counted by the hour they were accepted in (UTC), by state and optionally by a group, with totals: messages, parts, what they were charged and what was refunded (and, for operators, what they cost us and the margin). Read from an hourly rollup to which the batch-scheduler adds every STATS_ROLLUP_SECONDS the messages accepted up to STATS_LAG_SECONDS ago that have ended, and later those that end after; asOf is the acceptance time up to which the messages are counted, settled whether every hour of the range is counted for good. An answer of more than ${STATS_DEFAULTS.maxRows} rows is refused (400)`;

export function operationsPaths(p: OpenApiParts): Json {
  return {
    '/admin/v1/stats/live': {
      get: {
        summary:
          'The messages accepted in each of the last minutes (the current one included), by what has become of them: delivered, failed, waiting or cancelled; read from the messages themselves, for a live view (scope messages:read)',
        security: p.admin,
        parameters: [
          query('minutes', 'How many minutes, 1 to 180', {
            type: 'integer',
            minimum: 1,
            maximum: 180,
            default: 60,
          }),
        ],
        responses: {
          200: { description: 'Every minute of the range', ...p.json('LiveStats') },
          ...p.pick(400, 401, 403),
        },
      },
    },
    '/admin/v1/smpp/waiting': {
      get: {
        summary:
          "Receipts and inbound messages waiting for an account's SMPP receiver sessions to take them, by account, those waiting longest first (scope accounts:read)",
        security: p.admin,
        responses: {
          200: { description: 'What waits', ...p.json('SmppWaitingList') },
          ...p.pick(401, 403),
        },
      },
    },
    '/admin/v1/stats': {
      get: {
        summary: `${statsSummary("Every account's, or one account's,")} (scope messages:read)`,
        security: p.admin,
        parameters: [...statsParameters(STATS_GROUPS), query('account', 'Account name')],
        responses: {
          200: { description: 'The statistics', ...p.json('StatsResult') },
          ...p.pick(400, 401, 403, 404),
        },
      },
    },
    '/secure/stats': {
      get: {
        summary: `${statsSummary("The account's own")}; connector and route only where the operator sets SHOW_ROUTES_TO_CUSTOMERS`,
        security: p.client,
        parameters: statsParameters(
          STATS_GROUPS.filter((g) => g !== 'account' && g !== 'customer_group'),
        ),
        responses: {
          200: { description: 'The statistics', ...p.json('StatsResult') },
          ...p.pick(400, 401, 403),
        },
      },
    },
    '/admin/v1/cdrs': {
      get: {
        summary: `The CDRs (call detail records) of the messages accepted in [since, until) that reached a final state, in id order, streamed as CSV (RFC 4180, a header row) or ndjson; a range of at most SEARCH_MAX_DAYS days (${SEARCH_DEFAULTS.maxDays} by default); times in UTC ISO 8601, money as decimal strings (scope messages:read; each export is on the audit trail). Columns: ${CDR_COLUMNS.map((c) => c.name).join(', ')}`,
        security: p.admin,
        parameters: [
          cdrTime('since', 'First accepted time, ISO 8601 with offset'),
          cdrTime('until', 'Accepted before this, ISO 8601 with offset; after since'),
          query('account', "One account's CDRs (its username)"),
          query('format', 'csv (default) or ndjson', {
            type: 'string',
            enum: [...CDR_FORMATS],
            default: 'csv',
          }),
          query(
            'per',
            'One row per message (default), or per part: one per part it was sent in, the money on the first',
            { type: 'string', enum: [...CDR_PER], default: 'message' },
          ),
        ],
        responses: {
          200: {
            description: 'The CDRs, as an attachment',
            content: {
              'text/csv': { schema: { type: 'string' } },
              'application/x-ndjson': { schema: { type: 'string' } },
            },
          },
          ...p.pick(400, 401, 403, 404),
        },
      },
    },
    '/admin/v1/batches/{id}': {
      delete: {
        summary:
          "Cancel a batch of any account, as its customer's DELETE /secure/batches/{id} does: what is not submitted yet is cancelled and refunded (scope accounts:write; on the audit trail with the amount refunded)",
        security: p.admin,
        parameters: [p.pathParam('id', 'batchId')],
        responses: {
          200: {
            description: 'Cancelled',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['data'],
                  properties: {
                    data: {
                      type: 'object',
                      required: ['batchId', 'state', 'refunded'],
                      properties: {
                        batchId: { type: 'string' },
                        state: { const: 'cancelled' },
                        refunded: { type: 'string' },
                      },
                    },
                  },
                },
              },
            },
          },
          ...p.pick(401, 403, 404, 409),
        },
      },
    },
    '/admin/v1/batches/stalled': {
      get: {
        summary: `Due batches of any account that have not moved (no chunk expanded, no message reaching an outcome) for \`after\` seconds, longest first, each with its reason (${STALL_REASONS.join(', ')}) and what to check; batches of a disabled account are held on purpose and not listed (scope batches:read)`,
        security: p.admin,
        parameters: [
          {
            name: 'after',
            in: 'query',
            required: false,
            schema: { type: 'integer', minimum: 1, default: STALL_DEFAULTS.batchSeconds },
            description: 'Seconds without moving',
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
            description: 'Batches listed at most',
          },
        ],
        responses: {
          200: { description: 'The stalled batches', ...p.json('StalledBatches') },
          ...p.pick(400, 401, 403),
        },
      },
    },
    '/admin/v1/tokens': {
      get: {
        summary: 'Named admin tokens with their scopes, revoked ones included (scope tokens)',
        security: p.admin,
        responses: {
          200: { description: 'The admin tokens', ...p.json('AdminTokenList') },
          ...p.pick(401, 403),
        },
      },
      post: {
        summary:
          'Makes a named admin token with scopes the caller holds itself; the token is shown once, only its hash is kept (scope tokens)',
        security: p.admin,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name', 'scopes'],
                properties: {
                  name: { type: 'string', pattern: '^[A-Za-z0-9_.@-]{1,64}$' },
                  scopes: {
                    type: 'array',
                    minItems: 1,
                    items: { type: 'string', enum: [...ADMIN_SCOPES] },
                  },
                },
              },
            },
          },
        },
        responses: {
          201: { description: 'The token, shown this once', ...p.json('AdminTokenCreated') },
          ...p.pick(400, 401, 403, 409),
        },
      },
    },
    '/admin/v1/tokens/{name}': {
      delete: {
        summary:
          'Revokes a named admin token and every token made by it or by those (revoked_with); their next requests are refused (scope tokens, and every scope of the revoked token)',
        security: p.admin,
        parameters: [p.pathParam('name', 'the token name')],
        responses: {
          200: {
            description: 'The revoked token, and the names of the tokens revoked with it',
            ...p.json('AdminTokenRevoked'),
          },
          ...p.pick(400, 401, 403, 404),
        },
      },
    },
    '/admin/v1/audit': {
      get: {
        summary:
          'The audit trail of admin changes, newest first: who (token name), what, on which target, from which address, when, with a redacted summary and the result (scope audit:read)',
        security: p.admin,
        parameters: [
          query('actor', 'Entries by this token name'),
          query('action', 'Entries of this action (method and route)'),
          query('target', 'Entries whose target starts with this, such as /accounts/alice'),
          query('result', 'ok, denied or failed'),
          query('since', 'From this time (RFC 3339)', { type: 'string', format: 'date-time' }),
          query('until', 'Up to this time (RFC 3339)', { type: 'string', format: 'date-time' }),
          query('limit', 'Entries per page', { type: 'integer', minimum: 1, maximum: 500 }),
          query('cursor', 'The `next` value of the previous page'),
        ],
        responses: {
          200: {
            description: 'A page of the trail; `next` is the cursor of the next page, or null',
            ...p.json('AuditPage'),
          },
          ...p.pick(400, 401, 403),
        },
      },
    },
  };
}
