import { billingPaths } from './openapi-billing';
import { consolePaths } from './openapi-console';
import { inboundPaths } from './openapi-inbound';
import { operationsPaths } from './openapi-operations';
import { accountListGet, messageLogPaths } from './openapi-message-log';
import { legacyPaths } from './openapi-legacy';
import { routingPaths } from './openapi-routing';
import {
  ConnectorInputSchema,
  ConnectorUpdateSchema,
  ConnectorViewSchema,
  MtRouteInputSchema,
  MtRouteViewSchema,
  RouteMatchSchema,
} from './routing';
import {
  InboundSecretSchema,
  InboundPageSchema,
  MoRouteListSchema,
  MoRouteMatchSchema,
  MoRouteSchema,
  OptOutPageSchema,
  OptOutRequestSchema,
  OptOutSettingsSchema,
} from './inbound';
import { z } from 'zod';
import { ConsoleLoginSchema, ConsoleSessionInfoSchema } from './console';
import {
  AccountPricingInputSchema,
  AccountPricingViewSchema,
  CreatePriceListSchema,
  ConnectorCostInputSchema,
  ConnectorCostListSchema,
  CustomerGroupInputSchema,
  CustomerGroupListSchema,
  CustomerGroupResultSchema,
  PriceListListSchema,
  PriceListResultSchema,
  PriceListVersionResultSchema,
} from './billing';
import {
  AccountViewSchema,
  ApplicationCreatedSchema,
  AdminTokenCreatedSchema,
  AdminTokenListSchema,
  AdminTokenRevokedSchema,
  ApplicationListSchema,
  AuditPageSchema,
  CreateAccountSchema,
  CreateApplicationSchema,
  CreditSchema,
  SetPasswordSchema,
} from './admin';
import { BatchConfigSchema, BatchStatusSchema } from './batch';
import { SenderRulesSchema, SenderRulesViewSchema } from './senders';
import {
  SmppAccessSchema,
  SmppAccessViewSchema,
  SmppSessionListSchema,
  SmppWaitingListSchema,
} from './smpp';
import { ErrorBodySchema, SPEC_MESSAGES } from './errors';
import { AddressSchema } from './fields';
import { FIELD_ALIASES, MessageObjectSchema, messageParams } from './message';
import { MessageStatusSchema } from './message-status';
import {
  AccountListSchema,
  BatchSearchResultSchema,
  MessageSearchResultSchema,
  MessageTimelineSchema,
} from './message-search';
import { StalledBatchesSchema } from './batch-stalls';
import { LiveStatsSchema, StatsResultSchema } from './stats';
import {
  CallbackSecretViewSchema,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  RotateCallbackSecretSchema,
} from './request-safety';
import {
  BalanceResultSchema,
  BatchResultSchema,
  SendResultSchema,
  TokenRequestSchema,
  TokenResponseSchema,
} from './results';

type Json = Record<string, unknown>;

function schemaOf(schema: z.ZodType): Json {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as Json;
  delete json['$schema'];
  return json;
}

/**
 * Both spellings of dashed fields are accepted (docs/architecture.md § Wire compatibility):
 * document the dashed ones too.
 */
function withAliases(objectSchema: Json): Json {
  const properties = { ...(objectSchema['properties'] as Record<string, Json>) };
  for (const [dashed, canonical] of Object.entries(FIELD_ALIASES)) {
    if (properties[canonical])
      properties[dashed] = { ...properties[canonical], description: `Same as ${canonical}.` };
  }
  return { ...objectSchema, properties };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ content: { 'application/json': { schema: ref(name) } } });
const error = (description: string) => ({ description, ...json('ErrorBody') });

const errors = {
  400: error('Invalid input: the body names the field (and index for batches)'),
  401: error('Missing or wrong credentials, or an expired token (ACCESS_TOKEN_EXPIRED)'),
  402: error('Not enough credit (INSUFFICIENT_CREDIT) or quota (QUOTA_EXCEEDED)'),
  403: error(
    'Forbidden: a browser request from another site (FORBIDDEN: an Origin not in CORS_ALLOWED_ORIGINS, or Sec-Fetch-Site cross-site); a sender the account may not use (SENDER_NOT_ALLOWED); a recipient on the opt-out list of the account (RECIPIENT_OPTED_OUT); or right credentials of an account an operator disabled (ACCOUNT_DISABLED), which a client should not retry; on the admin API, an admin token without the scope the request needs (FORBIDDEN, field scope)',
  ),
  404: error('Not found (NOT_FOUND)'),
  409: error('Conflict (CONFLICT)'),
  413: error('Body too large (PAYLOAD_TOO_LARGE)'),
  415: error('Unsupported content type (UNSUPPORTED_MEDIA_TYPE)'),
  429: {
    ...error(
      'Too many failed logins from this name or address, or another large batch of this account still being read (RATE_LIMITED)',
    ),
    headers: {
      'Retry-After': {
        description:
          'Seconds until failed logins are counted afresh, or until trying the batch again',
        schema: { type: 'integer', minimum: 1 },
      },
    },
  },
  503: {
    ...error(
      'A dependency is unavailable, or too many logins are being checked at once (SERVICE_UNAVAILABLE)',
    ),
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before trying again, when known',
        schema: { type: 'integer', minimum: 1 },
      },
    },
  },
};
const idempotencyConflict = error(
  'The Idempotency-Key was used with another request (IDEMPOTENCY_KEY_REUSED), or its first request is still running (IDEMPOTENCY_KEY_IN_PROGRESS)',
);
const idempotencyKey = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  schema: { type: 'string', pattern: '^[A-Za-z0-9._:~-]{1,255}$' },
  description:
    'Optional. The same key (per account) with the same body within the idempotency window (24 h by default) returns the first answer, status and body, and sends nothing again, also when both requests arrive at once; the same key with another body is a 409 IDEMPOTENCY_KEY_REUSED; a key too long or with other characters is a 400. A replayed answer carries `Idempotent-Replayed: true`. Answers with a 5xx status are not kept: a retry runs anew.',
};
const replayedHeader = {
  [IDEMPOTENT_REPLAYED_HEADER]: {
    description: 'true when the answer is replayed from an earlier request with the same key',
    schema: { type: 'string', enum: ['true'] },
  },
};
const pick = (...codes: (keyof typeof errors)[]) =>
  Object.fromEntries(codes.map((c) => [String(c), errors[c]]));
// A web console session (its cookie, and X-CSRF-Token on every change) stands in for both.
const client = [{ basicAuth: [] }, { bearerAuth: [] }, { consoleSession: [] }];
const admin = [{ adminToken: [] }, { consoleSession: [] }];
const customer = [{ basicAuth: [] }, { consoleSession: [] }];
const pathParam = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description,
});

/** OpenAPI 3.1 for the public API, generated from the zod schemas the services validate with. */
export function buildOpenApiDocument(): Json {
  const batchMessage = withAliases(
    schemaOf(
      z.strictObject({
        to: z.union([AddressSchema, z.array(AddressSchema).min(1)]),
        ...messageParams,
      }),
    ),
  );
  const schemas: Record<string, Json> = {
    Message: withAliases(schemaOf(MessageObjectSchema)),
    BatchMessage: batchMessage,
    Globals: withAliases(schemaOf(z.strictObject(messageParams))),
    BatchConfig: schemaOf(BatchConfigSchema),
    BatchRequest: {
      type: 'object',
      additionalProperties: false,
      required: ['messages'],
      properties: {
        messages: { type: 'array', minItems: 1, items: ref('BatchMessage') },
        globals: ref('Globals'),
        batch_config: ref('BatchConfig'),
      },
    },
    SendResult: {
      ...schemaOf(SendResultSchema),
      examples: [{ data: 'Success "9b3c1f0e-6a8e-4c0e-9d41-3f1a2b7c8d90' }],
    },
    BatchResult: schemaOf(BatchResultSchema),
    BatchStatus: schemaOf(BatchStatusSchema),
    BalanceResult: {
      ...schemaOf(BalanceResultSchema),
      examples: [{ data: { balance: '99.5', sms_count: 'ND' } }],
    },
    MessageStatus: schemaOf(MessageStatusSchema),
    StalledBatches: schemaOf(StalledBatchesSchema),
    RateResult: {
      type: 'object',
      properties: {
        data: {
          type: 'object',
          required: ['coding', 'encoding', 'segments', 'rate', 'cost'],
          properties: {
            coding: { type: 'integer' },
            encoding: { type: 'string' },
            segments: { type: 'integer' },
            rate: { type: 'string' },
            cost: { type: 'string' },
          },
        },
      },
    },
    JasminRateResult: {
      type: 'object',
      properties: {
        data: {
          type: 'object',
          required: ['submit_sm_count', 'unit_rate'],
          properties: { submit_sm_count: { type: 'integer' }, unit_rate: { type: 'number' } },
        },
      },
    },
    JasminPong: {
      type: 'object',
      properties: { data: { type: 'string', const: 'Jasmin/PONG' } },
    },
    TokenRequest: schemaOf(TokenRequestSchema),
    TokenResponse: schemaOf(TokenResponseSchema),
    ErrorBody: schemaOf(ErrorBodySchema),
    CreateAccount: schemaOf(CreateAccountSchema),
    Credit: schemaOf(CreditSchema),
    CreateApplication: schemaOf(CreateApplicationSchema),
    SetPassword: schemaOf(SetPasswordSchema),
    Account: schemaOf(AccountViewSchema),
    ApplicationCreated: schemaOf(ApplicationCreatedSchema),
    RotateCallbackSecret: schemaOf(RotateCallbackSecretSchema),
    CallbackSecret: schemaOf(CallbackSecretViewSchema),
    CallbackSecretResult: {
      type: 'object',
      required: ['data'],
      properties: { data: ref('CallbackSecret') },
    },
    SenderRules: schemaOf(SenderRulesSchema),
    SenderRulesView: schemaOf(SenderRulesViewSchema),
    SmppAccess: schemaOf(SmppAccessSchema),
    SmppAccessView: schemaOf(SmppAccessViewSchema),
    SmppSessionList: schemaOf(SmppSessionListSchema),
    OptOutRequest: schemaOf(OptOutRequestSchema),
    OptOutSettings: schemaOf(OptOutSettingsSchema),
    InboundSecret: schemaOf(InboundSecretSchema),
    MoRoute: schemaOf(MoRouteSchema),
    ConnectorInput: schemaOf(ConnectorInputSchema),
    ConnectorUpdate: schemaOf(ConnectorUpdateSchema),
    MtRoute: schemaOf(MtRouteInputSchema),
    Connector: schemaOf(ConnectorViewSchema),
    MtRouteView: schemaOf(MtRouteViewSchema),
    MessageSearchResult: schemaOf(MessageSearchResultSchema),
    BatchSearchResult: schemaOf(BatchSearchResultSchema),
    AccountList: schemaOf(AccountListSchema),
    MessageTimeline: schemaOf(MessageTimelineSchema),
    StatsResult: schemaOf(StatsResultSchema),
    LiveStats: schemaOf(LiveStatsSchema),
    SmppWaitingList: schemaOf(SmppWaitingListSchema),
    RouteMatch: schemaOf(RouteMatchSchema),
    MoRouteList: schemaOf(MoRouteListSchema),
    MoRouteMatch: schemaOf(MoRouteMatchSchema),
    ApplicationList: schemaOf(ApplicationListSchema),
    CreatePriceList: schemaOf(CreatePriceListSchema),
    PriceListList: schemaOf(PriceListListSchema),
    PriceListResult: schemaOf(PriceListResultSchema),
    PriceListVersionResult: schemaOf(PriceListVersionResultSchema),
    ConnectorCostInput: schemaOf(ConnectorCostInputSchema),
    ConnectorCostList: schemaOf(ConnectorCostListSchema),
    CustomerGroupInput: schemaOf(CustomerGroupInputSchema),
    CustomerGroupList: schemaOf(CustomerGroupListSchema),
    CustomerGroupResult: schemaOf(CustomerGroupResultSchema),
    AccountPricingInput: schemaOf(AccountPricingInputSchema),
    AccountPricing: schemaOf(AccountPricingViewSchema),
    AdminTokenList: schemaOf(AdminTokenListSchema),
    AdminTokenCreated: schemaOf(AdminTokenCreatedSchema),
    AdminTokenRevoked: schemaOf(AdminTokenRevokedSchema),
    AuditPage: schemaOf(AuditPageSchema),
    InboundPage: schemaOf(InboundPageSchema),
    OptOutPage: schemaOf(OptOutPageSchema),
    ConsoleLogin: schemaOf(ConsoleLoginSchema),
    ConsoleSessionInfo: schemaOf(ConsoleSessionInfoSchema),
  };
  const form = { schema: ref('TokenRequest') };
  return {
    openapi: '3.1.0',
    info: {
      title: 'sms-gateway',
      version: '1.0.0',
      description:
        'Wire-compatible with the Jasmin REST API and the D7 token endpoint. Every error body is ErrorBody.',
    },
    components: {
      schemas,
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'Account username and password' },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'access_token from /auth/v1/login/application',
        },
        adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' },
        consoleSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'smsgw_console',
          description:
            'A web console session (POST /console/v1/session); a request that changes something also carries X-CSRF-Token',
        },
      },
    },
    paths: {
      ...inboundPaths({ json, pick, client, admin, pathParam }),
      ...routingPaths({ json, pick, client, admin, pathParam }),
      ...operationsPaths({ json, pick, client, admin, pathParam }),
      ...messageLogPaths({ json, pick, client, admin, pathParam }),
      ...consolePaths({ json, pick, client, admin, pathParam }),
      ...billingPaths({ json, pick, client, admin, pathParam }),
      ...legacyPaths(),
      '/secure/send': {
        post: {
          summary: 'Send one SMS',
          security: client,
          parameters: [idempotencyKey],
          requestBody: { required: true, ...json('Message') },
          responses: {
            200: { description: 'Accepted', headers: replayedHeader, ...json('SendResult') },
            ...pick(400, 401, 402, 403, 413, 415, 429, 503),
            409: idempotencyConflict,
          },
        },
      },
      '/secure/sendbatch': {
        post: {
          summary: 'Send a batch',
          security: client,
          parameters: [idempotencyKey],
          requestBody: { required: true, ...json('BatchRequest') },
          responses: {
            200: { description: 'Accepted', headers: replayedHeader, ...json('BatchResult') },
            ...pick(400, 401, 402, 403, 413, 415, 429, 503),
            409: idempotencyConflict,
          },
        },
      },
      '/secure/batches/{id}': {
        get: {
          summary: 'Batch state and counts',
          security: client,
          parameters: [pathParam('id', 'batchId')],
          responses: {
            200: { description: 'The batch', ...json('BatchStatus') },
            ...pick(401, 403, 404, 429, 503),
          },
        },
        delete: {
          summary: 'Cancel what is not sent yet, refunded',
          security: client,
          parameters: [pathParam('id', 'batchId')],
          responses: {
            200: { description: 'Cancelled', ...json('BatchStatus') },
            ...pick(401, 403, 404, 409, 429, 503),
          },
        },
      },
      '/secure/messages/{id}': {
        get: {
          summary: 'A message and its state',
          security: client,
          parameters: [pathParam('id', 'message id')],
          responses: {
            200: { description: 'The message', ...json('MessageStatus') },
            ...pick(401, 403, 404, 429, 503),
          },
        },
      },
      '/secure/rate': {
        get: {
          summary:
            "Parts and unit price of a message given in the query, in Jasmin's answer (docs/compatibility.md)",
          security: client,
          parameters: ['to', 'content', 'hex-content', 'coding', 'from', 'tags'].map((name) => ({
            name,
            in: 'query',
            required: name === 'to',
            schema: { type: 'string' },
          })),
          responses: {
            200: { description: 'The parts and unit price', ...json('JasminRateResult') },
            ...pick(400, 401, 403, 429, 503),
          },
        },
        post: {
          summary: 'Encoding, parts and price of a message, without sending it',
          security: client,
          requestBody: { required: true, ...json('Message') },
          responses: {
            200: { description: 'The price', ...json('RateResult') },
            ...pick(400, 401, 403, 429, 503),
          },
        },
      },
      '/secure/balance': {
        get: {
          summary: 'Balance and quota ("ND": unlimited)',
          security: client,
          responses: {
            200: { description: 'Balance', ...json('BalanceResult') },
            ...pick(401, 403, 429, 503),
          },
        },
      },
      '/auth/v1/applications': {
        get: {
          summary:
            "The account's live applications, with its username and password or its console session (an application's token is refused, 403)",
          security: customer,
          responses: {
            200: { description: 'The applications', ...json('ApplicationList') },
            ...pick(401, 403, 429, 503),
          },
        },
        post: {
          summary: 'Make an application: its client_secret is shown in this answer only',
          security: customer,
          requestBody: { ...json('CreateApplication') },
          responses: {
            201: { description: 'Made', ...json('ApplicationCreated') },
            ...pick(400, 401, 403, 409, 413, 415, 429, 503),
          },
        },
      },
      '/auth/v1/applications/{clientId}': {
        delete: {
          summary: 'Revoke an application: its tokens stop working',
          security: customer,
          parameters: [pathParam('clientId', 'client_id')],
          responses: { 204: { description: 'Revoked' }, ...pick(400, 401, 403, 404, 429, 503) },
        },
      },
      '/secure/callback-secret': {
        get: {
          summary: "The secret that signs this account's callbacks (X-Smsgw-Signature)",
          security: client,
          responses: {
            200: { description: 'The secret', ...json('CallbackSecretResult') },
            ...pick(401),
          },
        },
        post: {
          summary:
            'Rotate the callback secret; the previous one keeps signing for grace_seconds (default 86400)',
          security: client,
          requestBody: { required: false, ...json('RotateCallbackSecret') },
          responses: {
            200: { description: 'The new secret', ...json('CallbackSecretResult') },
            ...pick(400, 401),
          },
        },
      },
      '/auth/v1/login/application': {
        post: {
          summary: 'Exchange client_id and client_secret for an access token',
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': form,
              'application/x-www-form-urlencoded': form,
              'application/json': form,
            },
          },
          responses: {
            200: { description: 'Token', ...json('TokenResponse') },
            ...pick(400, 401, 403),
            // The specification's answer, exactly; a wrong secret of a live application is a 401.
            404: {
              description: `No live application has this client_id: {"detail": {"code": "APPLICATION_NOT_EXISTS", "message": "${SPEC_MESSAGES.APPLICATION_NOT_EXISTS}"}}`,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['detail'],
                    properties: {
                      detail: {
                        type: 'object',
                        required: ['code', 'message'],
                        properties: {
                          code: { const: 'APPLICATION_NOT_EXISTS' },
                          message: { const: SPEC_MESSAGES.APPLICATION_NOT_EXISTS },
                        },
                      },
                    },
                  },
                },
              },
            },
            ...pick(415, 429, 503),
          },
        },
      },
      '/admin/v1/accounts': {
        get: accountListGet({ json, pick, client, admin, pathParam }),
        post: {
          summary:
            'Create an account; a balance, a quota or a rate needs the scope credit besides accounts:write',
          security: admin,
          requestBody: { required: true, ...json('CreateAccount') },
          responses: {
            201: { description: 'Created', ...json('Account') },
            ...pick(400, 401, 403, 409),
          },
        },
      },
      '/admin/v1/accounts/{username}': {
        get: {
          summary: 'An account',
          security: admin,
          parameters: [pathParam('username', 'account')],
          responses: { 200: { description: 'The account', ...json('Account') }, ...pick(401, 404) },
        },
      },
      '/admin/v1/accounts/{username}/disable': {
        post: {
          summary:
            'Disable an account: every auth replica and gateway refuses it within a second (403 ACCOUNT_DISABLED), its access tokens stop working, its scheduled batches are held',
          security: admin,
          parameters: [pathParam('username', 'account')],
          responses: {
            200: { description: 'The account (disabled_at set)', ...json('Account') },
            ...pick(401, 404),
          },
        },
      },
      '/admin/v1/accounts/{username}/enable': {
        post: {
          summary:
            'Enable an account again; its held batches start, access tokens issued before the disable stay refused',
          security: admin,
          parameters: [pathParam('username', 'account')],
          responses: {
            200: { description: 'The account (disabled_at null)', ...json('Account') },
            ...pick(401, 404),
          },
        },
      },
      '/admin/v1/accounts/{username}/password': {
        post: {
          summary:
            'Set a new password: the old one and every access token of the account stop working within a second',
          security: admin,
          parameters: [pathParam('username', 'account')],
          requestBody: { required: true, ...json('SetPassword') },
          responses: {
            200: { description: 'The account', ...json('Account') },
            ...pick(400, 401, 404),
          },
        },
      },
      '/admin/v1/accounts/{username}/applications/{clientId}/secret': {
        post: {
          summary:
            "Rotate an application's secret (the new one is shown once); the old secret and its access tokens stop working within a second",
          security: admin,
          parameters: [pathParam('username', 'account'), pathParam('clientId', 'client_id')],
          responses: {
            200: { description: 'The new secret', ...json('ApplicationCreated') },
            ...pick(400, 401, 404),
          },
        },
      },
      '/admin/v1/accounts/{username}/credit': {
        post: {
          summary: 'Add credit or quota',
          security: admin,
          parameters: [pathParam('username', 'account')],
          requestBody: { required: true, ...json('Credit') },
          responses: {
            200: { description: 'The account', ...json('Account') },
            ...pick(400, 401, 404),
          },
        },
      },
      '/admin/v1/accounts/{username}/callback-secret': {
        get: {
          summary: "The secret that signs the account's callbacks",
          security: admin,
          parameters: [pathParam('username', 'account')],
          responses: {
            200: { description: 'The secret', ...json('CallbackSecret') },
            ...pick(401, 404),
          },
        },
        post: {
          summary: "Rotate the account's callback secret",
          security: admin,
          parameters: [pathParam('username', 'account')],
          requestBody: { required: false, ...json('RotateCallbackSecret') },
          responses: {
            200: { description: 'The new secret', ...json('CallbackSecret') },
            ...pick(400, 401, 404),
          },
        },
      },
      '/admin/v1/accounts/{username}/applications': {
        get: {
          summary: "The account's live applications (never their secrets)",
          security: admin,
          parameters: [pathParam('username', 'account')],
          responses: {
            200: { description: 'The applications', ...json('ApplicationList') },
            ...pick(401, 404),
          },
        },
        post: {
          summary: 'Create an application (the secret is shown once)',
          security: admin,
          parameters: [pathParam('username', 'account')],
          requestBody: { ...json('CreateApplication') },
          responses: {
            201: { description: 'Created', ...json('ApplicationCreated') },
            ...pick(400, 401, 404),
          },
        },
      },
      '/admin/v1/accounts/{username}/applications/{clientId}': {
        delete: {
          summary: 'Revoke an application and its tokens',
          security: admin,
          parameters: [pathParam('username', 'account'), pathParam('clientId', 'client_id')],
          responses: { 204: { description: 'Revoked' }, ...pick(401, 404) },
        },
      },
      '/admin/v1/accounts/{username}/senders': {
        get: {
          summary: 'The senders the account may use, and what happens to others',
          security: admin,
          parameters: [pathParam('username', 'account')],
          responses: {
            200: { description: 'The rules', ...json('SenderRulesView') },
            ...pick(401, 404),
          },
        },
        put: {
          summary: "Replace the account's senders (exact values or globs with * and ?) and policy",
          security: admin,
          parameters: [pathParam('username', 'account')],
          requestBody: { required: true, ...json('SenderRules') },
          responses: {
            200: { description: 'The rules', ...json('SenderRulesView') },
            ...pick(400, 401, 404),
          },
        },
        delete: {
          summary: "Remove the account's list: UNLISTED_SENDERS decides for it again",
          security: admin,
          parameters: [pathParam('username', 'account')],
          responses: {
            200: { description: 'The rules', ...json('SenderRulesView') },
            ...pick(401, 404),
          },
        },
      },
      '/admin/v1/accounts/{username}/smpp': {
        get: {
          summary: "The account's SMPP access: system_id and limits (docs/smpp-server.md)",
          security: admin,
          parameters: [pathParam('username', 'account')],
          responses: {
            200: { description: 'The access', ...json('SmppAccessView') },
            ...pick(401, 404),
          },
        },
        put: {
          summary:
            'Give the account SMPP access or change it: its SMPP password (8 characters), sessions, addresses, messages per second',
          security: admin,
          parameters: [pathParam('username', 'account')],
          requestBody: { required: true, ...json('SmppAccess') },
          responses: {
            200: { description: 'The access', ...json('SmppAccessView') },
            ...pick(400, 401, 404),
          },
        },
        delete: {
          summary: "Take the account's SMPP access away; its sessions are closed",
          security: admin,
          parameters: [pathParam('username', 'account')],
          responses: { 204: { description: 'Taken away' }, ...pick(401, 404) },
        },
      },
      '/admin/v1/smpp/sessions': {
        get: {
          summary: 'The SMPP sessions bound to every smpp-server replica (docs/smpp-server.md)',
          security: admin,
          responses: {
            200: { description: 'The sessions', ...json('SmppSessionList') },
            ...pick(401),
          },
        },
      },
      '/admin/v1/smpp/sessions/{id}': {
        delete: {
          summary: 'Unbind and close one SMPP session (its replica does within seconds)',
          security: admin,
          parameters: [pathParam('id', 'session id')],
          responses: { 202: { description: 'Asked' }, ...pick(400, 401, 404) },
        },
      },
      '/ping': {
        get: {
          summary: "Jasmin's REST ping",
          responses: { 200: { description: 'Jasmin/PONG', ...json('JasminPong') } },
        },
      },
      '/secure/ping': {
        get: {
          summary: "Jasmin's REST ping, with the client's credentials checked",
          security: client,
          responses: { 200: { description: 'Jasmin/PONG', ...json('JasminPong') }, ...pick(401) },
        },
      },
      '/healthz': { get: { summary: 'Alive', responses: { 200: { description: 'Alive' } } } },
      '/readyz': {
        get: {
          summary: 'Dependencies answer',
          responses: { 200: { description: 'Ready' }, 503: { description: 'Not ready' } },
        },
      },
      '/metrics': {
        get: {
          summary: 'Prometheus metrics',
          responses: {
            200: {
              description: 'Metrics',
              content: { 'text/plain': { schema: { type: 'string' } } },
            },
          },
        },
      },
    },
  };
}
