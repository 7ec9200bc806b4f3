/**
 * Auth's internal credential check, in distributed mode: it answers whether a password is right,
 * so it must answer only the gateway, which proves itself with the shared INTERNAL_TOKEN.
 */
import { randomBytes } from 'node:crypto';
import { waitFor } from '@smsgw/kit/testing';
import { useDistributedRun } from '../../support/distributed';
import { request } from '../../support/http';

describe("auth's internal credential check", () => {
  const run = useDistributedRun();
  let authUrl: string;
  let gatewayUrl: string;
  let credentials: string;

  beforeAll(async () => {
    const started = await run.gatewayWithAccount('inside');
    authUrl = started.auth.url;
    gatewayUrl = started.gateway.url;
    credentials = started.credentials;
  });

  const verify = (headers: Record<string, string>) =>
    request(authUrl, 'POST', '/internal/v1/verify', { auth: credentials, headers });

  it('refuses a caller without the internal token, even with right credentials', async () => {
    const reply = await verify({});
    expect([401, 403]).toContain(reply.status);
    expect(reply.text).not.toContain('inside');
  });

  it('refuses a caller with a wrong internal token', async () => {
    for (const token of [
      randomBytes(24).toString('hex'),
      `${run.cluster.env['INTERNAL_TOKEN']}x`,
      run.cluster.env['INTERNAL_TOKEN'].slice(0, -1),
      '',
    ]) {
      const reply = await verify({ 'x-internal-token': token });
      expect({ token, status: [401, 403].includes(reply.status) }).toEqual({ token, status: true });
      expect(reply.text).not.toContain('inside');
    }
  });

  it('answers a caller with the internal token', async () => {
    const reply = await verify({ 'x-internal-token': run.cluster.env['INTERNAL_TOKEN'] });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ username: 'inside' });
  });

  it('lets the gateway with the right token serve its customers', async () => {
    const reply = await request(gatewayUrl, 'GET', '/secure/balance', { auth: credentials });
    expect(reply.status).toBe(200);
  });

  it('makes a gateway with a wrong token answer 503, not a verdict on the credentials', async () => {
    const stray = await run.start('api-gateway', {
      AUTH_URL: authUrl,
      INTERNAL_TOKEN: randomBytes(24).toString('hex'),
    });
    const reply = await request(stray.url, 'GET', '/secure/balance', { auth: credentials });
    expect(reply.status).toBe(503);
    expect(reply.body.detail.code).toBe('SERVICE_UNAVAILABLE');
    expect(reply.text).not.toMatch(/INTERNAL_TOKEN|x-internal-token/i);
    // The operator learns why from the gateway's log.
    await waitFor(
      () => stray.output().includes('auth refused INTERNAL_TOKEN') || undefined,
      10_000,
    );
  });
});
