import type { OpenApiParts } from './openapi-inbound';

/** The OpenAPI paths of connectors and MT routes (docs/routing.md). */

type Json = Record<string, unknown>;

const query = (name: string, description: string, required = false): Json => ({
  name,
  in: 'query',
  required,
  schema: { type: 'string' },
  description,
});
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** `{ data: … }`, as every admin answer is wrapped. */
const ok = (description: string, data: Json) => ({
  description,
  content: {
    'application/json': {
      schema: { type: 'object', required: ['data'], properties: { data } },
    },
  },
});
const oneConnector = ok('{ data: connector }', ref('Connector'));
const oneRoute = ok('{ data: route }', ref('MtRouteView'));
const deleted = ok('Deleted', {
  type: 'object',
  required: ['name', 'deleted'],
  properties: { name: { type: 'string' }, deleted: { const: true } },
});

/** One TLV as `custom_tlvs` takes it (Jasmin's shapes), for the TLV bodies below. */
const tlvInput = {
  type: 'array',
  description:
    '[tag, length, type, value], [tag, type, value] or [tag, value]; tag an integer or "0x1400", ' +
    'type one of Int1, Int2, Int4, Int8, OctetString, COctetString; length, when not null, the ' +
    "value's octets. Tags 0x020C, 0x020E, 0x020F and 0x0424 are the gateway's own.",
  minItems: 2,
  maxItems: 4,
};
const tlvList = ok('{ data: { name, tlvs } }', {
  type: 'object',
  required: ['name', 'tlvs'],
  properties: {
    name: { type: 'string' },
    tlvs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['tag', 'length', 'value_hex'],
        properties: {
          tag: { type: 'string', examples: ['0x1400'] },
          length: { type: 'integer' },
          value_hex: { type: 'string' },
        },
      },
    },
  },
});
export function routingPaths(p: OpenApiParts): Json {
  const name = [p.pathParam('name', 'connector name')];
  const route = [p.pathParam('name', 'route name')];
  // GET and PUT of a connector's default TLVs or a route's overrides (docs/routing.md § TLVs).
  const tlvPaths = (whose: string, parameters: unknown[]) => ({
    get: {
      summary: `The ${whose}`,
      security: p.admin,
      parameters,
      responses: { 200: tlvList, ...p.pick(400, 401, 404) },
    },
    put: {
      summary: `Replace the ${whose} (an empty list removes them); dispatchers follow within seconds`,
      security: p.admin,
      parameters,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['tlvs'],
              additionalProperties: false,
              properties: { tlvs: { type: 'array', maxItems: 16, items: tlvInput } },
            },
          },
        },
      },
      responses: { 200: tlvList, ...p.pick(400, 401, 404) },
    },
  });
  const connectorAction = (summary: string) => ({
    post: {
      summary,
      security: p.admin,
      parameters: name,
      responses: { 200: oneConnector, ...p.pick(400, 401, 404) },
    },
  });
  return {
    '/admin/v1/connectors': {
      get: {
        summary: "Connectors with each one's state, sessions, window, waiting, rate and last error",
        security: p.admin,
        responses: {
          200: ok('{ data: connectors }', { type: 'array', items: ref('Connector') }),
          ...p.pick(401),
        },
      },
      post: {
        summary: 'Create a connector (its password is never returned)',
        security: p.admin,
        requestBody: { required: true, ...p.json('ConnectorInput') },
        responses: { 201: oneConnector, ...p.pick(400, 401, 409) },
      },
    },
    '/admin/v1/connectors/{name}': {
      get: {
        summary: 'One connector and its status',
        security: p.admin,
        parameters: name,
        responses: { 200: oneConnector, ...p.pick(400, 401, 404) },
      },
      patch: {
        summary: "Change a connector's URL, binds or bind mode; dispatchers follow within seconds",
        security: p.admin,
        parameters: name,
        requestBody: { required: true, ...p.json('ConnectorUpdate') },
        responses: { 200: oneConnector, ...p.pick(400, 401, 404) },
      },
      delete: {
        summary: 'Delete a connector no route uses',
        security: p.admin,
        parameters: name,
        responses: { 200: deleted, ...p.pick(400, 401, 404, 409) },
      },
    },
    '/admin/v1/connectors/{name}/stop': connectorAction(
      'Unbind the connector and hold its traffic (failover routes pass theirs on)',
    ),
    '/admin/v1/connectors/{name}/start': connectorAction('Bind the connector again'),
    '/admin/v1/connectors/{name}/tlvs': tlvPaths(
      "connector's default TLVs, under each message's own",
      name,
    ),
    '/admin/v1/routes/{name}/tlvs': tlvPaths(
      "route's TLV overrides, over each message's own",
      route,
    ),
    '/admin/v1/routes': {
      get: {
        summary: 'MT routes, in the order they are tried',
        security: p.admin,
        responses: {
          200: ok('{ data: routes }', { type: 'array', items: ref('MtRouteView') }),
          ...p.pick(401),
        },
      },
    },
    '/admin/v1/routes/match': {
      get: {
        summary:
          'Which MT route would take a message: the first by position whose filters all match, as acceptance decides; a weighted route with all its connectors',
        security: p.admin,
        parameters: [
          query('to', 'Destination, international digits with an optional +', true),
          query('account', "The sending account's name", true),
          query('from', 'The sender'),
          query('tags', "The message's tags, comma-separated"),
          query('at', 'The time of sending (ISO 8601 with offset), for time windows; default now'),
        ],
        responses: {
          200: { description: 'The route, or null', ...p.json('RouteMatch') },
          ...p.pick(400, 401, 403),
        },
      },
    },
    '/admin/v1/routes/{name}': {
      get: {
        summary: 'One MT route',
        security: p.admin,
        parameters: route,
        responses: { 200: oneRoute, ...p.pick(400, 401, 404) },
      },
      put: {
        summary:
          'Create or replace an MT route; giving, changing or taking away its price needs the scope credit besides routes',
        security: p.admin,
        parameters: route,
        requestBody: { required: true, ...p.json('MtRoute') },
        responses: { 200: oneRoute, ...p.pick(400, 401, 403, 409) },
      },
      delete: {
        summary: 'Delete an MT route',
        security: p.admin,
        parameters: route,
        responses: { 200: deleted, ...p.pick(400, 401, 404) },
      },
    },
  };
}
