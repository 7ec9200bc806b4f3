/**
 * The setup the Net::SMPP suites share: an embedded gateway (tests/support/embedded) in front of
 * a simulator as the operator's SMSC, accounts with SMPP access made through the admin API, and
 * Net::SMPP clients closed after each test.
 */
import { SmppSimulator } from '@smsgw/smsc';
import { ADMIN_TOKEN, startEmbedded, type RunningGateway } from '../../support/embedded';
import { basic, request, type Reply } from '../../support/http';
import { NetSmppEsme, type BindKind, type EsmeOptions } from './esme';
import { ensureNetSmpp } from './install';

export interface CustomerGateway {
  gw: RunningGateway;
  smsc: SmppSimulator;
  admin(method: string, path: string, json?: unknown): Promise<Reply>;
  /** An account with an HTTP password `<username>-http-password` and the SMPP access given. */
  account(username: string, smpp: Record<string, unknown>): Promise<void>;
  /** The message as GET /secure/messages/{id} shows it to its account. */
  message(username: string, id: string): Promise<Reply>;
  /** A Net::SMPP client on the gateway's SMPP port, closed by closeClients. */
  client(options?: Omit<EsmeOptions, 'port'>): NetSmppEsme;
  /** A client bound with the given kind; the bind must succeed. */
  bound(kind: BindKind, systemId: string, password: string): Promise<NetSmppEsme>;
  closeClients(): void;
  stop(): Promise<void>;
}

export async function startCustomerGateway(
  simulator: { deliveryReceipts: boolean },
  env: Record<string, string> = {},
): Promise<CustomerGateway> {
  // Before the gateway runs in this process: an install blocks it while apt-get works.
  ensureNetSmpp();
  const smsc = new SmppSimulator({ host: '127.0.0.1', port: 0, ...simulator });
  const { port } = await smsc.start();
  const gw = await startEmbedded({ SMSC_URL: `smpp://gw:pw@127.0.0.1:${port}`, ...env });
  const clients: NetSmppEsme[] = [];
  const admin = (method: string, path: string, json?: unknown): Promise<Reply> =>
    request(gw.base, method, `/admin/v1${path}`, {
      auth: `Bearer ${ADMIN_TOKEN}`,
      ...(json !== undefined && { json }),
    });
  const client = (options: Omit<EsmeOptions, 'port'> = {}): NetSmppEsme => {
    const esme = NetSmppEsme.create({ port: gw.gateway.smppPort, ...options });
    clients.push(esme);
    return esme;
  };
  return {
    gw,
    smsc,
    admin,
    async account(username, smpp) {
      const created = await admin('POST', '/accounts', {
        username,
        password: `${username}-http-password`,
        balance: '100',
        rate: '0.1',
      });
      if (created.status !== 201) throw new Error(`account ${username}: ${created.text}`);
      const access = await admin('PUT', `/accounts/${username}/smpp`, smpp);
      if (access.status !== 200) throw new Error(`SMPP access of ${username}: ${access.text}`);
    },
    message: (username, id) =>
      request(gw.base, 'GET', `/secure/messages/${id}`, {
        auth: basic(username, `${username}-http-password`),
      }),
    client,
    async bound(kind, systemId, password) {
      const esme = client();
      const resp = await esme.bind(kind, systemId, password);
      if (resp.status !== 0) throw new Error(`bind_${kind} of ${systemId}: status ${resp.status}`);
      return esme;
    },
    closeClients() {
      for (const esme of clients.splice(0)) esme.close();
    },
    async stop() {
      for (const esme of clients.splice(0)) esme.close();
      await gw.stop();
      await smsc.stop();
    },
  };
}
