/**
 * SMPP binds and HTTP logins are limited apart, black-box in embedded mode, with the login
 * counters in memory and (when REDIS_URL says a Redis is at hand) in a Redis of the test's own:
 * a flood of wrong binds, for one name or from one address, does not lock that customer's HTTP,
 * Jasmin `/send` or Kannel `sendsms` logins out, nor do wrong HTTP logins block binds; each side
 * still locks itself.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../support/processes';
import { startRedis } from '../support/redis-server';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../support/embedded';
import { basic, request } from '../support/http';
import { openEsme } from '../smpp-server/support/esme-client';

const PER_NAME = 3;
const PER_ADDRESS = 16;
const ESME_ROK = 0x00;
const ESME_RBINDFAIL = 0x0d;
const ESME_RINVPASWD = 0x0e;

const httpPassword = (username: string) => `${username}-http-password`;
const smppPassword = (username: string) => `${username.slice(0, 4).padEnd(4, 'x')}Pw#1`;

async function customer(gw: RunningGateway, username: string): Promise<void> {
  const admin = { auth: `Bearer ${ADMIN_TOKEN}` };
  const created = await request(gw.base, 'POST', '/admin/v1/accounts', {
    ...admin,
    json: { username, password: httpPassword(username), balance: null },
  });
  expect(created.status).toBe(201);
  const access = await request(gw.base, 'PUT', `/admin/v1/accounts/${username}/smpp`, {
    ...admin,
    json: { password: smppPassword(username) },
  });
  expect(access.status).toBe(200);
}

/** One bind on a connection of its own; its command_status. */
async function bind(gw: RunningGateway, systemId: string, password: string): Promise<number> {
  const esme = await openEsme({ port: gw.gateway.smppPort });
  try {
    return (await esme.bind('bind_transceiver', systemId, password)).status;
  } finally {
    esme.close();
  }
}

const balance = async (gw: RunningGateway, username: string, password: string) =>
  (await request(gw.base, 'GET', '/secure/balance', { auth: basic(username, password) })).status;

const jasminSend = async (gw: RunningGateway, username: string) =>
  request(
    gw.base,
    'GET',
    `/send?${new URLSearchParams({ username, password: httpPassword(username), to: '41790003001', content: 'hi' }).toString()}`,
  );

const kannelSendsms = async (gw: RunningGateway, username: string) =>
  request(
    gw.base,
    'GET',
    `/cgi-bin/sendsms?${new URLSearchParams({ username, password: httpPassword(username), to: '41790003002', text: 'hi' }).toString()}`,
  );

const counters: Array<[string, boolean]> = [
  ['in memory', true],
  ['in Redis', Boolean(process.env['REDIS_URL'])],
];

describe.each(counters.filter(([, run]) => run).map(([where]) => where))(
  'login counters %s',
  (where) => {
    let redis: ChildProcess | undefined;
    const running: RunningGateway[] = [];

    async function gateway(): Promise<RunningGateway> {
      const env: Record<string, string> = {
        LOGIN_FAILURES_PER_NAME: String(PER_NAME),
        LOGIN_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
        LOGIN_WINDOW_SECONDS: '900',
      };
      if (where === 'in Redis') {
        // A Redis of this suite's own, emptied by each start: counters of other suites (the same
        // loopback address) stay out.
        redis?.kill('SIGKILL');
        const port = await freePort();
        redis = await startRedis(port);
        env['REDIS_URL'] = `redis://127.0.0.1:${port}`;
      }
      const gw = await startEmbedded(env);
      running.push(gw);
      return gw;
    }

    afterEach(async () => {
      for (const gw of running.splice(0)) await gw.stop();
      redis?.kill('SIGKILL');
      redis = undefined;
    });

    it('wrong binds lock SMPP only: HTTP, Jasmin and Kannel logins still work', async () => {
      const gw = await gateway();
      const names = ['ivy', 'ivo', 'ida'];
      for (const name of names) await customer(gw, name);

      // Each name's wrong binds, until its SMPP limit refuses them.
      for (const name of names) {
        for (let i = 0; i < PER_NAME; i++)
          expect(await bind(gw, name, `wrong-${i}`)).toBe(ESME_RINVPASWD);
        expect(await bind(gw, name, 'wrong-x')).toBe(ESME_RBINDFAIL);
      }
      // Then binds by names nobody has, until the address's SMPP limit refuses them.
      const statuses: number[] = [];
      for (let i = 0; i < PER_ADDRESS; i++) statuses.push(await bind(gw, `nobody${i}`, 'guess'));
      expect(statuses.filter((s) => s === ESME_RINVPASWD)).toHaveLength(
        PER_ADDRESS - names.length * (PER_NAME + 1),
      );
      expect(statuses.at(-1)).toBe(ESME_RBINDFAIL);

      // SMPP still locks itself: the right SMPP password is refused, by name and by address.
      expect(await bind(gw, 'ivy', smppPassword('ivy'))).toBe(ESME_RBINDFAIL);
      // HTTP's own counters are untouched: each customer logs in over HTTP, Jasmin and Kannel.
      expect(await balance(gw, 'ivy', httpPassword('ivy'))).toBe(200);
      const jasmin = await jasminSend(gw, 'ivo');
      expect(jasmin.status).toBe(200);
      expect(jasmin.text).toMatch(/^Success "/);
      const kannel = await kannelSendsms(gw, 'ida');
      expect({ status: kannel.status, text: kannel.text }).toEqual({
        status: 202,
        text: '0: Accepted for delivery',
      });
    }, 120_000);

    it('wrong HTTP logins lock HTTP only: the same customers still bind', async () => {
      const gw = await gateway();
      for (const name of ['jay', 'kim']) await customer(gw, name);

      for (let i = 0; i < PER_NAME; i++) expect(await balance(gw, 'jay', `wrong-${i}`)).toBe(401);
      expect(await balance(gw, 'jay', 'wrong-x')).toBe(429);
      // HTTP still locks itself: jay's right HTTP password is refused for its name.
      expect(await balance(gw, 'jay', httpPassword('jay'))).toBe(429);
      // Names nobody has, until the address's HTTP limit refuses them, and kim (who never logged
      // in) with it.
      const statuses: number[] = [];
      for (let i = 0; i < PER_ADDRESS; i++) statuses.push(await balance(gw, `nobody${i}`, 'guess'));
      expect(statuses.at(-1)).toBe(429);
      expect(await balance(gw, 'kim', httpPassword('kim'))).toBe(429);
      const kannel = await kannelSendsms(gw, 'kim');
      expect({ status: kannel.status, text: kannel.text }).toEqual({
        status: 403,
        text: 'Authorization failed for sendsms',
      });

      // SMPP's own counters are untouched: both bind with their SMPP passwords.
      expect(await bind(gw, 'jay', smppPassword('jay'))).toBe(ESME_ROK);
      expect(await bind(gw, 'kim', smppPassword('kim'))).toBe(ESME_ROK);
    }, 120_000);
  },
);
