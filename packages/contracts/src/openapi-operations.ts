/** The OpenAPI paths of what operators watch: batches that stopped moving. */
import type { OpenApiParts } from './openapi-inbound';
import { STALL_DEFAULTS, STALL_REASONS } from './batch-stalls';

type Json = Record<string, unknown>;

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
  };
}
