import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import type { Router } from 'express';
import {
  BatchRequestSchema,
  CreateAccountSchema,
  SendRequestSchema,
  TokenRequestSchema,
  buildOpenApiDocument,
} from '@smsgw/contracts';
import { startEmbedded, type RunningGateway } from '../support/embedded';
import { request } from '../support/http';

const document = buildOpenApiDocument() as {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, object> };
};

/** Routes an express router serves, as "METHOD /path/{param}". */
function routesOf(router: Router, prefix = ''): string[] {
  const out: string[] = [];
  type Layer = {
    route?: { path: string; methods: Record<string, boolean> };
    handle?: Router;
    rawPath?: string;
    slash?: boolean;
  };
  for (const layer of (router as unknown as { stack: Layer[] }).stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods))
        out.push(`${method.toUpperCase()} ${prefix}${layer.route.path.replace(/:(\w+)/g, '{$1}')}`);
    } else if (layer.handle && (layer.handle as unknown as { stack?: unknown }).stack) {
      // A mounted router: express 5 keeps its mount path as rawPath.
      out.push(
        ...routesOf(layer.handle, `${prefix}${layer.slash || !layer.rawPath ? '' : layer.rawPath}`),
      );
    }
  }
  return out;
}

describe('OpenAPI document', () => {
  it('is valid OpenAPI 3.1', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const metaSchema = JSON.parse(
      readFileSync(
        join(
          require.resolve('@seriousme/openapi-schema-validator/package.json'),
          '..',
          'schemas',
          'v3.1',
          'schema.json',
        ),
        'utf8',
      ),
    );
    const validate = ajv.compile(metaSchema);
    expect({ valid: validate(document), errors: validate.errors ?? [] }).toEqual({
      valid: true,
      errors: [],
    });
  });

  describe('covers every route the services serve', () => {
    let gw: RunningGateway;
    beforeAll(async () => {
      gw = await startEmbedded({});
    });
    afterAll(() => gw?.stop());

    it('gateway and auth routes are all documented, and /openapi.json and /docs are served', async () => {
      const { createGatewayRoutes, IdempotentRequests } = await import('@smsgw/api-gateway');
      const { createAuthRoutes } = await import('@smsgw/auth');
      const stub = {} as never;
      const served = [
        ...routesOf(
          createGatewayRoutes({
            caller: stub,
            paramsCaller: stub,
            send: stub,
            accept: stub,
            logger: stub,
            store: stub,
            batches: stub,
            batchStore: stub,
            idempotency: new IdempotentRequests(stub, stub, {
              windowSeconds: 1,
              waitMs: 1,
              pollMs: 1,
            }),
            db: stub,
            maxBodyBytes: 1,
            maxBatchBytes: 1,
            maxParts: 1,
            corsAllowedOrigins: [],
            showRoutes: false,
            kannelTlvs: [],
            searchMaxDays: 31,
            httpInbound: stub,
            router: stub,
          }),
        ),
        ...routesOf(
          createAuthRoutes({
            sessions: stub,
            store: stub,
            senders: stub,
            db: stub,
            hasher: stub,
            tokens: stub,
            verifier: stub,
            guard: stub,
            announcer: stub,
            adminToken: 'x'.repeat(16),
            maxBodyBytes: 1,
            trustedProxies: stub,
            searchMaxDays: 31,
            connectors: { secrets: stub, allowedHosts: [] },
          }),
        ),
      ].filter((r) => !/(openapi\.json|\/docs|\/internal\/)/.test(r));
      const documented = Object.entries(document.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      );
      expect(served.length).toBeGreaterThan(10);
      expect(served.filter((r) => !documented.includes(r))).toEqual([]);

      const served_ = await request(gw.base, 'GET', '/openapi.json');
      expect(served_.body).toEqual(JSON.parse(JSON.stringify(document)));
      const page = await request(gw.base, 'GET', '/docs');
      expect(page.text).toMatch(/<title>sms-gateway API<\/title>/);
      expect(page.text).not.toMatch(/https?:\/\/(?!127)/);
    });
  });

  describe('recorded examples agree with both the document and the code', () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'doc', components: document.components });
    const check = (name: string, body: unknown) =>
      ajv.validate({ $ref: `doc#/components/schemas/${name}` }, body);

    const valid: [string, unknown, { safeParse(v: unknown): { success: boolean } }][] = [
      ['Message', { to: '+41790000001', content: 'Hello' }, SendRequestSchema],
      ['Message', { to: '41790000001', 'hex-content': '00480069', coding: 8 }, SendRequestSchema],
      [
        'Message',
        {
          to: 41790000001,
          content: 'Hi',
          dlr: 'yes',
          'dlr-url': 'https://example.com/dlr',
          'dlr-level': 3,
          'dlr-method': 'POST',
        },
        SendRequestSchema,
      ],
      [
        'Message',
        { to: '41790000001', content: 'Hi', priority: 2, 'validity-period': 60, tags: ['a', 1] },
        SendRequestSchema,
      ],
      [
        'BatchRequest',
        {
          messages: [
            { to: ['41790000001', '41790000002'], content: 'a' },
            { to: '41790000003', content: 'b', from: 'Acme' },
          ],
          globals: { from: 'Shop' },
        },
        BatchRequestSchema,
      ],
      [
        'BatchRequest',
        {
          messages: [{ to: '41790000001', content: 'x' }],
          batch_config: {
            callback_url: 'https://example.com/ok',
            errback_url: 'https://example.com/ko',
            schedule_at: '30s',
          },
        },
        BatchRequestSchema,
      ],
      ['TokenRequest', { client_id: 'abc', client_secret: 'def' }, TokenRequestSchema],
      [
        'CreateAccount',
        { username: 'alice', password: 's3cret-pass', balance: '10', rate: '0.05' },
        CreateAccountSchema,
      ],
    ];
    it.each(valid)('%s example %#', (name, body, zod) => {
      expect(check(name, body)).toBe(true);
      expect(zod.safeParse(body).success).toBe(true);
    });

    const invalid: [string, unknown, { safeParse(v: unknown): { success: boolean } }][] = [
      ['Message', { to: '41790000001', content: 'x', colour: 'red' }, SendRequestSchema],
      ['BatchRequest', { messages: [], extra: 1 }, BatchRequestSchema],
      ['CreateAccount', { username: 'bob' }, CreateAccountSchema],
    ];
    it.each(invalid)('%s counter-example %# fails both', (name, body, zod) => {
      expect(check(name, body)).toBe(false);
      expect(zod.safeParse(body).success).toBe(false);
    });
  });
});
