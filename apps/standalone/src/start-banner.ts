export interface BannerFacts {
  host: string;
  port: number;
  /** Where customers bind over SMPP (and over TLS, when configured). */
  smppPort: number;
  smppTlsPort?: number | undefined;
  dataDir: string;
  adminToken: string;
  adminTokenFromEnv: boolean;
  simulator: boolean;
  /** The built-in simulator's control endpoint (replies from handsets: POST /originate). */
  simulatorControlUrl?: string | undefined;
  /** SMSGW_INSECURE_DEV_SECRETS let weak secrets through. */
  insecureSecrets?: boolean;
  /** Whether the web console is built and served at /console/. */
  console: boolean;
}

/** What a newcomer needs right after `pnpm start`: where it listens and how to get credentials. */
export function startBanner(f: BannerFacts): string {
  const shownHost = f.host === '0.0.0.0' || f.host === '::' ? '127.0.0.1' : f.host;
  const base = `http://${shownHost}:${f.port}`;
  const token = f.adminTokenFromEnv
    ? '$ADMIN_TOKEN (from the environment)'
    : `${f.adminToken}  (kept in ${f.dataDir}/admin-token)`;
  return [
    '',
    `sms-gateway is running (embedded mode) on ${base}`,
    f.console
      ? `  web console   ${base}/console/   (operators log in with the admin token below)`
      : `  web console   not built: npm run build, then start again`,
    `  REST API      ${base}/secure/send  /secure/balance`,
    `  tokens        ${base}/auth/v1/login/application`,
    `  SMPP server   smpp://${shownHost}:${f.smppPort}${f.smppTlsPort === undefined ? '' : `  ssmpp://${shownHost}:${f.smppTlsPort}`}   (system_id: the username; docs/smpp-server.md)`,
    `  admin API     ${base}/admin/v1   (Authorization: Bearer <admin token>)`,
    `  health        ${base}/healthz  ${base}/readyz  ${base}/metrics`,
    `  data          ${f.dataDir}`,
    `  SMSC          ${f.simulator ? 'built-in SMPP simulator (set SMSC_URL=smpp://user:pass@host:port for a real one)' : 'SMSC_URL'}`,
    `  admin token   ${token}`,
    ...(f.simulatorControlUrl
      ? [
          `  replies       curl -X POST ${f.simulatorControlUrl}/originate -H 'Content-Type: application/json' \\`,
          `                     -d '{"from":"41790000001","to":"4000","text":"YES"}'   (docs/inbound.md)`,
        ]
      : []),
    ...(f.insecureSecrets
      ? [
          '',
          'WARNING: SMSGW_INSECURE_DEV_SECRETS=1 accepted secrets that anyone can know: development only.',
        ]
      : []),
    '',
    'Create an account, then send:',
    `  npm run smsgw -- accounts create alice --password 's3cret-pass' --balance 100`,
    `  curl -u alice:s3cret-pass -H 'Content-Type: application/json' \\`,
    `       -d '{"to":"41790000001","content":"Hello"}' ${base}/secure/send`,
    `  curl -u alice:s3cret-pass ${base}/secure/balance`,
    'Callbacks to this machine are refused unless allowed: CALLBACK_ALLOWED_HOSTS=127.0.0.1,localhost',
    '',
  ].join('\n');
}
