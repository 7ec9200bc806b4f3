import type { OpenApiParts } from './openapi-inbound';

/** The OpenAPI paths of connectors and MT routes (docs/routing.md). */

type Json = Record<string, unknown>;

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

export function routingPaths(p: OpenApiParts): Json {
  const name = [p.pathParam('name', 'connector name')];
  const route = [p.pathParam('name', 'route name')];
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
    '/admin/v1/routes/{name}': {
      get: {
        summary: 'One MT route',
        security: p.admin,
        parameters: route,
        responses: { 200: oneRoute, ...p.pick(400, 401, 404) },
      },
      put: {
        summary: 'Create or replace an MT route',
        security: p.admin,
        parameters: route,
        requestBody: { required: true, ...p.json('MtRoute') },
        responses: { 200: oneRoute, ...p.pick(400, 401, 409) },
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
