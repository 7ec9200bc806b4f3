/** The OpenAPI paths of two-way messaging: inbound messages, opt-out lists, MO routes. */

type Json = Record<string, unknown>;

export interface OpenApiParts {
  json: (name: string) => Json;
  pick: (...codes: (400 | 401 | 402 | 403 | 404 | 409 | 413 | 415 | 429 | 503)[]) => Json;
  client: Json[];
  admin: Json[];
  pathParam: (name: string, description: string) => Json;
}

const query = (name: string, description: string, type = 'string') => ({
  name,
  in: 'query',
  required: false,
  schema: { type },
  description,
});
const ok = (description: string) => ({
  description,
  content: { 'application/json': { schema: { type: 'object' } } },
});

export function inboundPaths(p: OpenApiParts): Json {
  const listParams = [
    query('limit', 'Entries per page'),
    query('cursor', "The previous page's next"),
  ];
  return {
    '/inbound/v1/http/{connector}': {
      post: {
        summary:
          "An HTTP upstream delivers an inbound message (form fields or JSON: from, to, text or binary hex, coding), authenticated as its connector by the connector's inbound secret (Bearer, or Basic with the connector's name), checked before the body is read",
        parameters: [p.pathParam('connector', 'the connector the upstream is')],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': { schema: { type: 'object' } },
            'application/json': { schema: { type: 'object' } },
          },
        },
        responses: { 200: ok('{ data: { id, recorded } }'), ...p.pick(400, 401) },
      },
    },
    '/secure/inbound': {
      get: {
        summary: "The account's inbound messages, newest first (cursor paging)",
        security: p.client,
        parameters: [
          ...listParams,
          query('to', 'Only messages sent to this number'),
          query('from', 'Only messages from this number'),
          query('since', 'Received at or after (ISO 8601)'),
          query('until', 'Received before (ISO 8601)'),
        ],
        responses: {
          200: { description: 'A page of messages', ...p.json('InboundPage') },
          ...p.pick(400, 401),
        },
      },
    },
    '/secure/inbound/{id}': {
      get: {
        summary: 'One inbound message of the account',
        security: p.client,
        parameters: [p.pathParam('id', 'inbound message id')],
        responses: { 200: ok('{ data: message }'), ...p.pick(401, 404) },
      },
    },
    '/secure/optouts': {
      get: {
        summary: "The account's opt-out list, in number order (cursor paging)",
        security: p.client,
        parameters: listParams,
        responses: {
          200: { description: 'A page of numbers', ...p.json('OptOutPage') },
          ...p.pick(400, 401),
        },
      },
      post: {
        summary: 'Put a number on the opt-out list: sends to it are refused (RECIPIENT_OPTED_OUT)',
        security: p.client,
        requestBody: { required: true, ...p.json('OptOutRequest') },
        responses: { 200: ok('Already on the list'), 201: ok('Added'), ...p.pick(400, 401) },
      },
    },
    '/secure/optouts/{number}': {
      delete: {
        summary: 'Take a number off the opt-out list',
        security: p.client,
        parameters: [p.pathParam('number', 'the number')],
        responses: { 200: ok('Removed'), ...p.pick(400, 401, 404) },
      },
    },
    '/admin/v1/mo-routes': {
      get: {
        summary: 'MO routes, in the order they are tried',
        security: p.admin,
        responses: { 200: { description: 'The routes', ...p.json('MoRouteList') }, ...p.pick(401) },
      },
    },
    '/admin/v1/mo-routes/match': {
      get: {
        summary:
          'Which MO route would take a message sent to a number through a connector: the first by position whose filters all match, as the callback-notifier decides',
        security: p.admin,
        parameters: [
          { ...query('to', 'The number the message is sent to'), required: true },
          query('text', "The message's text: its first word is the keyword"),
          query('connector', 'The connector it arrives through; default: default'),
        ],
        responses: {
          200: { description: 'The route, or null', ...p.json('MoRouteMatch') },
          ...p.pick(400, 401, 403),
        },
      },
    },
    '/admin/v1/mo-routes/{name}': {
      get: {
        summary: 'One MO route',
        security: p.admin,
        parameters: [p.pathParam('name', 'route name')],
        responses: { 200: ok('{ data: route }'), ...p.pick(400, 401, 404) },
      },
      put: {
        summary: 'Create or replace an MO route',
        security: p.admin,
        parameters: [p.pathParam('name', 'route name')],
        requestBody: { required: true, ...p.json('MoRoute') },
        responses: { 200: ok('{ data: route }'), ...p.pick(400, 401, 409) },
      },
      delete: {
        summary: 'Delete an MO route',
        security: p.admin,
        parameters: [p.pathParam('name', 'route name')],
        responses: { 200: ok('Deleted'), ...p.pick(400, 401, 404) },
      },
    },
    '/admin/v1/inbound/unrouted': {
      get: {
        summary: 'Inbound messages no MO route took, newest first',
        security: p.admin,
        parameters: [query('limit', 'At most this many')],
        responses: { 200: ok('{ data: messages }'), ...p.pick(400, 401) },
      },
    },
    '/admin/v1/accounts/{username}/optouts': {
      get: {
        summary: "An account's opt-out list",
        security: p.admin,
        parameters: [p.pathParam('username', 'account'), ...listParams],
        responses: {
          200: { description: 'A page of numbers', ...p.json('OptOutPage') },
          ...p.pick(400, 401, 404),
        },
      },
      post: {
        summary: "Put a number on an account's opt-out list",
        security: p.admin,
        parameters: [p.pathParam('username', 'account')],
        requestBody: { required: true, ...p.json('OptOutRequest') },
        responses: { 200: ok('Already on the list'), 201: ok('Added'), ...p.pick(400, 401, 404) },
      },
    },
    '/admin/v1/accounts/{username}/optout-words': {
      get: {
        summary:
          "An account's opt-out and opt-in words (null: the defaults) and transactional flag",
        security: p.admin,
        parameters: [p.pathParam('username', 'account')],
        responses: {
          200: ok('{ data: { optout, optin, transactional } }'),
          ...p.pick(400, 401, 404),
        },
      },
      put: {
        summary:
          "Replace an account's opt-out words, opt-in words and transactional flag (a transactional account's sends are not held to its opt-out list)",
        security: p.admin,
        parameters: [p.pathParam('username', 'account')],
        requestBody: { required: true, ...p.json('OptOutSettings') },
        responses: {
          200: ok('{ data: { optout, optin, transactional } }'),
          ...p.pick(400, 401, 404),
        },
      },
    },
    '/admin/v1/connectors/{name}/inbound-secret': {
      get: {
        summary: 'Whether the connector has an inbound secret (the secret itself is never shown)',
        security: p.admin,
        parameters: [p.pathParam('name', 'connector')],
        responses: { 200: ok('{ data: { connector, inboundSecret } }'), ...p.pick(400, 401, 404) },
      },
      put: {
        summary:
          'Set the secret an HTTP upstream presents as this connector (32 to 256 characters; only its hash is kept)',
        security: p.admin,
        parameters: [p.pathParam('name', 'connector')],
        requestBody: { required: true, ...p.json('InboundSecret') },
        responses: { 200: ok('{ data: { connector, inboundSecret } }'), ...p.pick(400, 401, 404) },
      },
      delete: {
        summary:
          "Clear the connector's inbound secret: its HTTP inbound endpoint refuses everything",
        security: p.admin,
        parameters: [p.pathParam('name', 'connector')],
        responses: { 200: ok('{ data: { connector, inboundSecret } }'), ...p.pick(400, 401, 404) },
      },
    },
    '/admin/v1/accounts/{username}/optouts/{number}': {
      delete: {
        summary: "Take a number off an account's opt-out list",
        security: p.admin,
        parameters: [p.pathParam('username', 'account'), p.pathParam('number', 'the number')],
        responses: { 200: ok('Removed'), ...p.pick(400, 401, 404) },
      },
    },
  };
}
