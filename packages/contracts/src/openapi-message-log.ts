/**
 * The OpenAPI paths of the message log: searches of messages and batches (a customer's own, or
 * every account's for an operator), a message's story, and the list of accounts.
 */
import type { OpenApiParts } from './openapi-inbound';
import { MESSAGE_ENTRIES, SEARCH_DEFAULTS } from './message-search';
import { BATCH_STATES, MESSAGE_STATE_FILTERS } from './states';

type Json = Record<string, unknown>;

const query = (name: string, description: string, schema: Json = { type: 'string' }): Json => ({
  name,
  in: 'query',
  required: false,
  schema,
  description,
});

const range = [
  query(
    'since',
    `Start of the range (ISO 8601 with offset); default: a day before until. The range may be at most SEARCH_MAX_DAYS (default ${SEARCH_DEFAULTS.maxDays})`,
    { type: 'string', format: 'date-time' },
  ),
  query('until', 'End of the range (ISO 8601 with offset); default: now', {
    type: 'string',
    format: 'date-time',
  }),
  query('limit', 'Entries per page', {
    type: 'integer',
    minimum: 1,
    maximum: SEARCH_DEFAULTS.maxLimit,
    default: SEARCH_DEFAULTS.limit,
  }),
];

const messageFilters = [
  ...range,
  query('to', 'Destination: international digits, exact, or a prefix ending in * (4179*)'),
  query('from', 'Sender, exact'),
  query(
    'state',
    `States, comma-separated: ${MESSAGE_STATE_FILTERS.join(', ')} (unknown: failed with an unknown outcome)`,
  ),
  query('batch', 'Batch id'),
  query('connector', 'A connector the message was offered to'),
  query('route', 'The MT route that took it'),
  query('entry', `How it came in: ${MESSAGE_ENTRIES.join(', ')}`, {
    type: 'string',
    enum: [...MESSAGE_ENTRIES],
  }),
  query('id', 'Message id'),
  query('next', "The previous page's next"),
];

const batchFilters = [
  ...range,
  query('state', 'Batch state', { type: 'string', enum: [...BATCH_STATES] }),
  query('next', "The previous page's next"),
];

export function messageLogPaths(p: OpenApiParts): Json {
  return {
    '/secure/messages': {
      get: {
        summary:
          "The account's own messages accepted in a time range, newest first, filtered by any of the parameters; route and connector are shown and searchable where the operator sets SHOW_ROUTES_TO_CUSTOMERS",
        security: p.client,
        parameters: messageFilters,
        responses: {
          200: { description: 'A page of messages', ...p.json('MessageSearchResult') },
          ...p.pick(400, 401, 403),
        },
      },
    },
    '/secure/batches': {
      get: {
        summary: "The account's own batches created in a time range, newest first",
        security: p.client,
        parameters: batchFilters,
        responses: {
          200: { description: 'A page of batches', ...p.json('BatchSearchResult') },
          ...p.pick(400, 401, 403),
        },
      },
    },
    '/admin/v1/messages': {
      get: {
        summary:
          "Every account's messages accepted in a time range, newest first, filtered by any of the parameters (scope messages:read; the text is masked without messages:content, and a read that shows it is audited)",
        security: p.admin,
        parameters: [...messageFilters, query('account', 'Account name')],
        responses: {
          200: { description: 'A page of messages', ...p.json('MessageSearchResult') },
          ...p.pick(400, 401, 403, 404),
        },
      },
    },
    '/admin/v1/messages/{id}': {
      get: {
        summary:
          'A message and its story in order: accepted (entry point), charged, routed, offered and failed over, submitted (SMSC id), parts, receipt, callbacks and SMPP receipts to the customer, refunds (scope messages:read; the text needs messages:content)',
        security: p.admin,
        parameters: [p.pathParam('id', 'message id')],
        responses: {
          200: { description: 'The message and its story', ...p.json('MessageTimeline') },
          ...p.pick(401, 403, 404),
        },
      },
    },
    '/admin/v1/batches': {
      get: {
        summary:
          "Every account's batches created in a time range, newest first (scope batches:read)",
        security: p.admin,
        parameters: [...batchFilters, query('account', 'Account name')],
        responses: {
          200: { description: 'A page of batches', ...p.json('BatchSearchResult') },
          ...p.pick(400, 401, 403, 404),
        },
      },
    },
  };
}

/** GET /admin/v1/accounts, beside the POST of the same path. */
export function accountListGet(p: OpenApiParts): Json {
  return {
    summary:
      'Accounts in name order, those whose name contains q when given, paged (scope accounts:read)',
    security: p.admin,
    parameters: [
      query('q', 'Part of the name, any case'),
      query('limit', 'Accounts per page', {
        type: 'integer',
        minimum: 1,
        maximum: SEARCH_DEFAULTS.maxLimit,
        default: SEARCH_DEFAULTS.limit,
      }),
      query('next', "The previous page's next"),
    ],
    responses: {
      200: { description: 'A page of accounts', ...p.json('AccountList') },
      ...p.pick(400, 401, 403),
    },
  };
}
