/** The OpenAPI paths of selling by destination: price lists, customer groups, an account's pricing. */
import { MAX_PRICE_ROWS } from './billing';
import type { OpenApiParts } from './openapi-inbound';

type Json = Record<string, unknown>;

const name = (what: string): Json => ({
  name: 'name',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
  description: what,
});
const query = (n: string, description: string): Json => ({
  name: n,
  in: 'query',
  required: false,
  schema: { type: 'string' },
  description,
});
const csv = { 'text/csv': { schema: { type: 'string' } } };

export function billingPaths(p: OpenApiParts): Json {
  return {
    '/admin/v1/price-lists': {
      get: {
        summary: 'The price lists, each with its versions (scope accounts:read)',
        security: p.admin,
        responses: {
          200: { description: 'The lists', ...p.json('PriceListList') },
          ...p.pick(401, 403),
        },
      },
      post: {
        summary: 'Make a price list, empty until a version is imported (scope credit)',
        security: p.admin,
        requestBody: { required: true, ...p.json('CreatePriceList') },
        responses: {
          201: { description: 'Made', ...p.json('PriceListResult') },
          ...p.pick(400, 401, 403, 409),
        },
      },
    },
    '/admin/v1/price-lists/{name}': {
      get: {
        summary: 'One price list with its versions: current, future and past (scope accounts:read)',
        security: p.admin,
        parameters: [name('the list')],
        responses: {
          200: { description: 'The list', ...p.json('PriceListResult') },
          ...p.pick(400, 401, 403, 404),
        },
      },
    },
    '/admin/v1/price-lists/{name}/versions': {
      post: {
        summary: `Import a version of the list from CSV: a header of prefix,price[,currency][,description], then a row per prefix (* for the default row), at most ${MAX_PRICE_ROWS} rows. Every row is checked first: any bad row refuses the whole file, each named by its line in errors, and nothing is stored. The version takes effect at effective_from (now by default) for every message accepted from then on (scope credit)`,
        security: p.admin,
        parameters: [
          name('the list'),
          query('effective_from', 'When it takes effect (ISO 8601 with offset); now by default'),
        ],
        requestBody: { required: true, content: csv },
        responses: {
          201: { description: 'The version stored', ...p.json('PriceListVersionResult') },
          ...p.pick(400, 401, 403, 404, 409, 413, 415),
        },
      },
    },
    '/admin/v1/price-lists/{name}/versions/{id}': {
      delete: {
        summary: 'Take back a version that has not taken effect yet (scope credit)',
        security: p.admin,
        parameters: [name('the list'), p.pathParam('id', 'the version id')],
        responses: { 204: { description: 'Taken back' }, ...p.pick(400, 401, 403, 404) },
      },
    },
    '/admin/v1/price-lists/{name}/csv': {
      get: {
        summary:
          'A version of the list as CSV (prefix,price,currency,description): the one in effect now, or ?version= (scope accounts:read)',
        security: p.admin,
        parameters: [
          name('the list'),
          query('version', 'A version id; default: the one in effect'),
        ],
        responses: {
          200: { description: 'The rows', content: csv },
          ...p.pick(400, 401, 403, 404),
        },
      },
    },
    '/admin/v1/groups': {
      get: {
        summary:
          'The customer groups with their price lists and how many accounts each has (scope accounts:read)',
        security: p.admin,
        responses: {
          200: { description: 'The groups', ...p.json('CustomerGroupList') },
          ...p.pick(401, 403),
        },
      },
    },
    '/admin/v1/groups/{name}': {
      get: {
        summary: 'One customer group (scope accounts:read)',
        security: p.admin,
        parameters: [name('the group')],
        responses: {
          200: { description: 'The group', ...p.json('CustomerGroupResult') },
          ...p.pick(400, 401, 403, 404),
        },
      },
      put: {
        summary:
          "Make a customer group or change it: its price list, and its accounts' default throughput and sender rules (scope credit)",
        security: p.admin,
        parameters: [name('the group')],
        requestBody: { required: true, ...p.json('CustomerGroupInput') },
        responses: {
          200: { description: 'The group', ...p.json('CustomerGroupResult') },
          ...p.pick(400, 401, 403),
        },
      },
      delete: {
        summary: 'Delete a customer group no account belongs to (scope credit)',
        security: p.admin,
        parameters: [name('the group')],
        responses: { 204: { description: 'Deleted' }, ...p.pick(400, 401, 403, 404, 409) },
      },
    },
    '/admin/v1/connector-costs': {
      get: {
        summary:
          "Each connector's cost list: the supplier's prices its messages cost us (scope accounts:read)",
        security: p.admin,
        responses: {
          200: { description: 'The cost lists', ...p.json('ConnectorCostList') },
          ...p.pick(401, 403),
        },
      },
    },
    '/admin/v1/connector-costs/{connector}': {
      put: {
        summary:
          "Give a connector (by name, configured or not yet) the price list of its supplier's prices; null takes it away (scope credit)",
        security: p.admin,
        parameters: [p.pathParam('connector', 'connector')],
        requestBody: { required: true, ...p.json('ConnectorCostInput') },
        responses: {
          200: { description: 'The cost lists', ...p.json('ConnectorCostList') },
          ...p.pick(400, 401, 403),
        },
      },
    },
    '/admin/v1/accounts/{username}/pricing': {
      get: {
        summary:
          "An account's group, its own price list, and the list that prices it (scope accounts:read)",
        security: p.admin,
        parameters: [p.pathParam('username', 'account')],
        responses: {
          200: { description: 'Its pricing', ...p.json('AccountPricing') },
          ...p.pick(400, 401, 403, 404),
        },
      },
      put: {
        summary:
          "Put an account in a group, or give it a list of its own over its group's; null takes either away (scope credit)",
        security: p.admin,
        parameters: [p.pathParam('username', 'account')],
        requestBody: { required: true, ...p.json('AccountPricingInput') },
        responses: {
          200: { description: 'Its pricing', ...p.json('AccountPricing') },
          ...p.pick(400, 401, 403, 404),
        },
      },
    },
  };
}
