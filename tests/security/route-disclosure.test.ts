/**
 * Which routes and operator links a gateway has, and which one a message took, is the operator's
 * business: customers' answers (rate, message status) name routes and connectors only where
 * SHOW_ROUTES_TO_CUSTOMERS is set.
 */
import { waitFor } from '@smsgw/kit/testing';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';

const admin = { auth: `Bearer ${ADMIN_TOKEN}` };

/** A gateway with one priced route and one account; the account's Basic header. */
async function gatewayWithRoute(env: Record<string, string>): Promise<[RunningGateway, string]> {
  const gw = await startEmbedded(env);
  const put = await request(gw.base, 'PUT', '/admin/v1/routes/swiss-premium', {
    ...admin,
    json: {
      position: 1,
      kind: 'static',
      connectors: [{ connector: 'default' }],
      filters: { prefixes: ['41'] },
      price: '0.09',
    },
  });
  expect(put.status).toBe(200);
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    ...admin,
    json: { username: 'customer', password: 'route-disclosure-pw', balance: '100', rate: '1' },
  });
  expect(created.status).toBe(201);
  return [gw, basic('customer', 'route-disclosure-pw')];
}

/** The rate answer once the route prices the message, then the status of one message sent. */
async function customerView(gw: RunningGateway, auth: string) {
  const rate = await waitFor(
    async () => {
      const r = await request(gw.base, 'POST', '/secure/rate', {
        auth,
        json: { to: '41790000001', content: 'x' },
      });
      return r.body?.data?.rate === '0.09' ? (r.body.data as Record<string, unknown>) : undefined;
    },
    20_000,
    'the route loaded',
  );
  const sent = await request(gw.base, 'POST', '/secure/send', {
    auth,
    json: { to: '41790000001', content: 'where did it go?' },
  });
  expect(sent.status).toBe(200);
  const id = /^Success "([0-9a-f-]+)"?$/.exec(String(sent.body?.data))?.[1];
  expect(id).toBeDefined();
  const status = await waitFor(
    async () => {
      const r = await request(gw.base, 'GET', `/secure/messages/${id}`, { auth });
      return r.body?.data?.state !== 'queued'
        ? (r.body.data as Record<string, unknown>)
        : undefined;
    },
    20_000,
    'the message submitted',
  );
  return { rate, status, sendText: sent.text };
}

describe('route and connector names in customer answers', () => {
  it('are absent by default', async () => {
    const [gw, auth] = await gatewayWithRoute({});
    try {
      const { rate, status, sendText } = await customerView(gw, auth);
      expect(rate).not.toHaveProperty('route');
      for (const field of ['route', 'connector', 'connectorTrail'])
        expect(status).not.toHaveProperty(field);
      expect(status['cost']).toBe('0.09');
      for (const text of [JSON.stringify(rate), JSON.stringify(status), sendText])
        expect(text).not.toMatch(/swiss-premium|"default"/);
    } finally {
      await gw.stop();
    }
  }, 120_000);

  it('are shown where the operator sets SHOW_ROUTES_TO_CUSTOMERS', async () => {
    const [gw, auth] = await gatewayWithRoute({ SHOW_ROUTES_TO_CUSTOMERS: 'true' });
    try {
      const { rate, status } = await customerView(gw, auth);
      expect(rate['route']).toBe('swiss-premium');
      expect(status).toMatchObject({ route: 'swiss-premium', connectorTrail: ['default'] });
    } finally {
      await gw.stop();
    }
  }, 120_000);
});
