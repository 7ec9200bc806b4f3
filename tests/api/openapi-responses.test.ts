import Ajv2020 from 'ajv/dist/2020';
import { buildOpenApiDocument } from '@smsgw/contracts';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request, type Reply } from '../support/http';

type Operation = { responses: Record<string, { content?: Record<string, { schema: object }> }> };
const document = buildOpenApiDocument() as {
  paths: Record<string, Record<string, Operation>>;
  components: object;
};

/**
 * The document describes what the services really answer: requests recorded here (successes and
 * errors) go to embedded mode, and each answer is checked against the schema the document gives
 * for its path, method and status.
 */
describe('real answers match the OpenAPI document', () => {
  let gw: RunningGateway;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'doc', components: document.components });
  const admin = `Bearer ${ADMIN_TOKEN}`;
  const alice = basic('openapi', 'openapi-pass');
  const checked: string[] = [];

  beforeAll(async () => {
    gw = await startEmbedded({});
  });
  afterAll(() => gw?.stop());

  /** Sends the request and checks its answer against the documented response of that status. */
  async function call(
    method: string,
    template: string,
    path: string,
    options: Parameters<typeof request>[3] = {},
  ): Promise<Reply> {
    const reply = await request(gw.base, method, path, options);
    const response =
      document.paths[template]?.[method.toLowerCase()]?.responses[String(reply.status)];
    expect({ template, method, status: reply.status, documented: response !== undefined }).toEqual({
      template,
      method,
      status: reply.status,
      documented: true,
    });
    const schema = response.content?.['application/json']?.schema;
    if (schema) {
      // Component references resolve in the document's components.
      const valid = ajv.validate(
        JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/')),
        reply.body,
      );
      expect({ template, method, status: reply.status, errors: valid ? [] : ajv.errors }).toEqual({
        template,
        method,
        status: reply.status,
        errors: [],
      });
    }
    checked.push(`${method} ${template} ${reply.status}`);
    return reply;
  }

  it('for the admin API, the token endpoint and the client API, successes and errors', async () => {
    expect(
      (
        await call('POST', '/admin/v1/accounts', '/admin/v1/accounts', {
          auth: admin,
          json: { username: 'openapi', password: 'openapi-pass', balance: '10', rate: '0.05' },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await call('POST', '/admin/v1/accounts', '/admin/v1/accounts', {
          auth: admin,
          json: { username: 'openapi', password: 'openapi-pass', balance: null },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await call('POST', '/admin/v1/accounts', '/admin/v1/accounts', {
          json: { username: 'x', password: 'y' },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await call('GET', '/admin/v1/accounts/{username}', '/admin/v1/accounts/openapi', {
          auth: admin,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call('GET', '/admin/v1/accounts/{username}', '/admin/v1/accounts/nobody', {
          auth: admin,
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(
          'POST',
          '/admin/v1/accounts/{username}/credit',
          '/admin/v1/accounts/openapi/credit',
          { auth: admin, json: { amount: '5' } },
        )
      ).status,
    ).toBe(200);
    const app = await call(
      'POST',
      '/admin/v1/accounts/{username}/applications',
      '/admin/v1/accounts/openapi/applications',
      { auth: admin, json: { name: 'docs' } },
    );
    expect(app.status).toBe(201);

    const form = new URLSearchParams({
      client_id: app.body.client_id,
      client_secret: app.body.client_secret,
    });
    const token = await call('POST', '/auth/v1/login/application', '/auth/v1/login/application', {
      body: form,
    });
    expect(token.status).toBe(200);
    expect(
      (
        await call('POST', '/auth/v1/login/application', '/auth/v1/login/application', {
          body: new URLSearchParams({ client_id: 'nope', client_secret: 'x' }),
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call('POST', '/auth/v1/login/application', '/auth/v1/login/application', {
          body: new URLSearchParams({ client_id: app.body.client_id, client_secret: 'x' }),
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await call('POST', '/auth/v1/login/application', '/auth/v1/login/application', {
          body: new URLSearchParams({ client_id: app.body.client_id }),
        })
      ).status,
    ).toBe(400);

    const bearer = `Bearer ${token.body.access_token}`;
    const sent = await call('POST', '/secure/send', '/secure/send', {
      auth: bearer,
      json: {
        to: '41790000001',
        content: 'Hello',
        dlr: 'yes',
        'dlr-url': 'https://example.com/dlr',
      },
    });
    expect(sent.status).toBe(200);
    expect(
      (
        await call('POST', '/secure/send', '/secure/send', {
          auth: alice,
          json: { to: '41790000001', content: 'x', colour: 'red' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call('POST', '/secure/send', '/secure/send', {
          json: { to: '41790000001', content: 'x' },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await call('POST', '/secure/send', '/secure/send', {
          auth: alice,
          body: '<sms/>',
          headers: { 'content-type': 'application/xml' },
        })
      ).status,
    ).toBe(415);
    expect(
      (
        await call('POST', '/secure/send', '/secure/send', {
          auth: alice,
          json: { to: '41790000001', content: 'x'.repeat(2000) },
        })
      ).status,
    ).toBe(400);

    const messageId = (sent.body.data as string).slice('Success "'.length);
    expect(
      (await call('GET', '/secure/messages/{id}', `/secure/messages/${messageId}`, { auth: alice }))
        .status,
    ).toBe(200);
    expect(
      (
        await call(
          'GET',
          '/secure/messages/{id}',
          '/secure/messages/00000000-0000-4000-8000-000000000000',
          { auth: alice },
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await call('POST', '/secure/rate', '/secure/rate', {
          auth: alice,
          json: { to: '41790000001', content: 'Grüezi 👋' },
        })
      ).status,
    ).toBe(200);
    expect((await call('GET', '/secure/balance', '/secure/balance', { auth: alice })).status).toBe(
      200,
    );

    const batch = await call('POST', '/secure/sendbatch', '/secure/sendbatch', {
      auth: alice,
      json: {
        globals: { from: 'Acme' },
        messages: [{ to: ['41790000002', '41790000003'], content: 'later' }],
        batch_config: { schedule_at: '3600s' },
      },
    });
    expect(batch.status).toBe(200);
    expect(
      (
        await call('POST', '/secure/sendbatch', '/secure/sendbatch', {
          auth: alice,
          json: { messages: [{ to: 'abc', content: 'x' }] },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call('POST', '/secure/sendbatch', '/secure/sendbatch', {
          auth: alice,
          json: { messages: [{ to: '41790000004', content: 'x'.repeat(150) }], globals: {} },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call('GET', '/secure/batches/{id}', `/secure/batches/${batch.body.data.batchId}`, {
          auth: alice,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call('DELETE', '/secure/batches/{id}', `/secure/batches/${batch.body.data.batchId}`, {
          auth: alice,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call('DELETE', '/secure/batches/{id}', `/secure/batches/${batch.body.data.batchId}`, {
          auth: alice,
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await call(
          'GET',
          '/secure/batches/{id}',
          '/secure/batches/00000000-0000-4000-8000-000000000000',
          { auth: alice },
        )
      ).status,
    ).toBe(404);

    // A poor account: 402 has its documented body too.
    await call('POST', '/admin/v1/accounts', '/admin/v1/accounts', {
      auth: admin,
      json: { username: 'broke', password: 'broke-pass', balance: '0', rate: '1' },
    });
    expect(
      (
        await call('POST', '/secure/send', '/secure/send', {
          auth: basic('broke', 'broke-pass'),
          json: { to: '41790000001', content: 'x' },
        })
      ).status,
    ).toBe(402);

    const revoke = await call(
      'DELETE',
      '/admin/v1/accounts/{username}/applications/{clientId}',
      `/admin/v1/accounts/openapi/applications/${app.body.client_id}`,
      { auth: admin },
    );
    expect(revoke.status).toBe(204);
    expect((await call('GET', '/secure/balance', '/secure/balance', { auth: bearer })).status).toBe(
      401,
    );
    expect(checked.length).toBeGreaterThan(25);
  });
  it('for connectors and MT routes, successes and errors', async () => {
    const connector = '/admin/v1/connectors/{name}';
    const route = '/admin/v1/routes/{name}';
    const expected: [string, string, string, unknown, number][] = [
      [
        'POST',
        '/admin/v1/connectors',
        '/admin/v1/connectors',
        { name: 'doc', url: 'smpp://d:pw@127.0.0.1:1' },
        201,
      ],
      [
        'POST',
        '/admin/v1/connectors',
        '/admin/v1/connectors',
        { name: 'doc', url: 'smpp://d@h?windw=1' },
        400,
      ],
      [
        'POST',
        '/admin/v1/connectors',
        '/admin/v1/connectors',
        { name: 'doc', url: 'smpp://d@h' },
        409,
      ],
      ['GET', '/admin/v1/connectors', '/admin/v1/connectors', undefined, 200],
      ['GET', connector, '/admin/v1/connectors/doc', undefined, 200],
      ['GET', connector, '/admin/v1/connectors/nope', undefined, 404],
      ['PATCH', connector, '/admin/v1/connectors/doc', { binds: 2 }, 200],
      ['POST', `${connector}/stop`, '/admin/v1/connectors/doc/stop', undefined, 200],
      ['POST', `${connector}/start`, '/admin/v1/connectors/doc/start', undefined, 200],
      [
        'PUT',
        route,
        '/admin/v1/routes/doc',
        {
          position: 1,
          kind: 'weighted',
          connectors: [
            { connector: 'doc', weight: 1 },
            { connector: 'default', weight: 2 },
          ],
          filters: { prefixes: ['44'] },
          price: '0.01',
        },
        200,
      ],
      [
        'PUT',
        route,
        '/admin/v1/routes/other',
        { position: 1, kind: 'static', connectors: [{ connector: 'doc' }] },
        409,
      ],
      ['GET', '/admin/v1/routes', '/admin/v1/routes', undefined, 200],
      ['GET', route, '/admin/v1/routes/doc', undefined, 200],
      ['DELETE', connector, '/admin/v1/connectors/doc', undefined, 409],
      ['DELETE', route, '/admin/v1/routes/doc', undefined, 200],
      ['DELETE', connector, '/admin/v1/connectors/doc', undefined, 200],
      ['GET', '/admin/v1/routes', '/admin/v1/routes', undefined, 200],
    ];
    for (const [method, template, path, json, status] of expected) {
      const reply = await call(method, template, path, {
        auth: admin,
        ...(json !== undefined && { json }),
      });
      expect({ method, path, status: reply.status }).toEqual({ method, path, status });
    }
    expect((await call('GET', '/admin/v1/connectors', '/admin/v1/connectors')).status).toBe(401);
  });
  it('for scoped admin tokens: refusals for want of credit and a revocation', async () => {
    const made = await call('POST', '/admin/v1/tokens', '/admin/v1/tokens', {
      auth: admin,
      json: { name: 'doc-writer', scopes: ['accounts:write', 'routes', 'tokens'] },
    });
    expect(made.status).toBe(201);
    const writer = `Bearer ${made.body.data.token}`;
    expect(
      (
        await call('POST', '/admin/v1/accounts', '/admin/v1/accounts', {
          auth: writer,
          json: { username: 'doc-free', password: 'doc-free-password', rate: '0' },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await call('PUT', '/admin/v1/routes/{name}', '/admin/v1/routes/doc-free', {
          auth: writer,
          json: { position: 5, kind: 'static', connectors: [{ connector: 'default' }], price: 0 },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await call('POST', '/admin/v1/tokens', '/admin/v1/tokens', {
          auth: writer,
          json: { name: 'doc-made', scopes: ['routes'] },
        })
      ).status,
    ).toBe(201);
    const revoked = await call('DELETE', '/admin/v1/tokens/{name}', '/admin/v1/tokens/doc-writer', {
      auth: admin,
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revoked_with).toEqual(['doc-made']);
  });
  it('for what the web console reads: tokens, audit, inbound, opt-outs, live counts, route answers, applications', async () => {
    const reads: [string, string][] = [
      ['/admin/v1/tokens', '/admin/v1/tokens'],
      ['/admin/v1/audit', '/admin/v1/audit?limit=5'],
      ['/admin/v1/stats/live', '/admin/v1/stats/live?minutes=3'],
      ['/admin/v1/smpp/waiting', '/admin/v1/smpp/waiting'],
      ['/admin/v1/routes/match', '/admin/v1/routes/match?to=41790000001&account=openapi'],
      ['/admin/v1/mo-routes/match', '/admin/v1/mo-routes/match?to=4000&text=stop'],
      ['/admin/v1/mo-routes', '/admin/v1/mo-routes'],
      ['/admin/v1/accounts/{username}/applications', '/admin/v1/accounts/openapi/applications'],
      ['/admin/v1/accounts/{username}/optouts', '/admin/v1/accounts/openapi/optouts'],
    ];
    for (const [template, path] of reads)
      expect((await call('GET', template, path, { auth: admin })).status).toBe(200);
    expect(
      (
        await call('POST', '/secure/optouts', '/secure/optouts', {
          auth: alice,
          json: { number: '41790000077' },
        })
      ).status,
    ).toBe(201);
    for (const path of ['/secure/optouts', '/secure/inbound'])
      expect((await call('GET', path, path, { auth: alice })).status).toBe(200);
    const made = await call('POST', '/auth/v1/applications', '/auth/v1/applications', {
      auth: alice,
      json: { name: 'documented' },
    });
    expect(made.status).toBe(201);
    expect(
      (await call('GET', '/auth/v1/applications', '/auth/v1/applications', { auth: alice })).body
        .data,
    ).toHaveLength(1);
  });
});
