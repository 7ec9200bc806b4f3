/**
 * The OpenAPI paths of what operators watch and control: batches that stopped moving, admin tokens
 * with their scopes, and the audit trail of admin changes.
 */
import type { OpenApiParts } from './openapi-inbound';
import { STALL_DEFAULTS, STALL_REASONS } from './batch-stalls';
import { ADMIN_SCOPES } from './admin';

type Json = Record<string, unknown>;

const tokenView: Json = {
  type: 'object',
  required: ['name', 'scopes', 'created_by', 'created_at', 'revoked_at'],
  properties: {
    name: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string', enum: [...ADMIN_SCOPES] } },
    created_by: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    revoked_at: { type: ['string', 'null'], format: 'date-time' },
  },
};
const data = (schema: Json, description: string): Json => ({
  description,
  content: { 'application/json': { schema: { type: 'object', properties: { data: schema } } } },
});
const query = (name: string, description: string, schema: Json = { type: 'string' }): Json => ({
  name,
  in: 'query',
  required: false,
  schema,
  description,
});

export function operationsPaths(p: OpenApiParts): Json {
  return {
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
          200: data({ type: 'array', items: tokenView }, 'The admin tokens'),
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
          201: data(
            {
              ...tokenView,
              properties: { ...(tokenView['properties'] as Json), token: { type: 'string' } },
            },
            'The token, shown this once',
          ),
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
          200: data(
            {
              ...tokenView,
              required: [...(tokenView['required'] as string[]), 'revoked_with'],
              properties: {
                ...(tokenView['properties'] as Json),
                revoked_with: { type: 'array', items: { type: 'string' } },
              },
            },
            'The revoked token, and the names of the tokens revoked with it',
          ),
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
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    data: { type: 'array', items: { type: 'object' } },
                    next: { type: ['string', 'null'] },
                  },
                },
              },
            },
          },
          ...p.pick(400, 401, 403),
        },
      },
    },
  };
}
