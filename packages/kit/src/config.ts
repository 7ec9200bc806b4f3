import { z } from 'zod';
import { SEARCH_DEFAULTS, STALL_DEFAULTS, parseSmppTlvDefinitions } from '@smsgw/contracts';
import { compileProxyTrust } from './client-address';
import { INSECURE_DEV_SECRETS_FLAG, SECRET_ADVICE, secretFindings } from './secret-policy';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const url = (protocols: string[]) =>
  z.string().refine(
    (s) => {
      try {
        return protocols.includes(new URL(s).protocol);
      } catch {
        return false;
      }
    },
    `expected a URL with scheme ${protocols.map((p) => p.replace(':', '')).join(' or ')}`,
  );

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/**
 * The runtime reads TZ itself and silently falls back to UTC for a zone it does not know, which
 * would move every local `schedule_at` by hours: such a TZ is refused at start instead.
 */
function isKnownTimeZone(name: string): boolean {
  // ICU matches zone names in any case, but the process's own zone does not (europe/zurich is UTC).
  if (!/^:?[A-Z][^/]*(\/[A-Z][^/]*)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name.replace(/^:/, '') });
    return true;
  } catch {
    return false;
  }
}

/** A comma-separated list, entries trimmed, empty ones dropped. */
function commaList(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** Every variable the services read; docs/configuration.md lists them. */
export const envVars = {
  PORT: int(0, 65535),
  HOST: z.string().min(1).default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  AMQP_URL: url(['amqp:', 'amqps:']).optional(),
  REDIS_URL: url(['redis:', 'rediss:']).optional(),
  BUS_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9_.-]{1,64}$/)
    .default('smsgw'),
  AUTH_URL: url(['http:', 'https:']),
  SMSC_URL: url(['smpp:', 'smpps:', 'http:', 'https:']).optional(),
  /** Sessions the `default` connector SMSC_URL defines may have open across the cluster. */
  SMSC_BINDS: int(1, 64).default(1),
  HTTP_THROUGHPUT_PER_WORKER: z.coerce.number().min(0).default(0),
  SMART_QOS: bool.default(false),
  TOKEN_TTL_SECONDS: int(60, 31 * 24 * 3600).default(3600),
  // Length, placeholders and published values are the secret policy's (secret-policy.ts).
  ADMIN_TOKEN: z.string().min(1),
  JWT_SECRET: z.string().min(1),
  /** Shared by auth and api-gateway: auth's credential check answers only callers that send it. */
  INTERNAL_TOKEN: z.string().min(1),
  /** `1` on a development install: weak or published secrets are accepted with a warning. */
  SMSGW_INSECURE_DEV_SECRETS: z
    .enum(['0', '1'], { message: 'must be 1 (development install) or unset' })
    .transform((v) => v === '1')
    .default(false),
  CALLBACK_ALLOWED_HOSTS: z.string().default('').transform(commaList),
  /** Seals connector passwords in the database (secret-box.ts); generated in embedded mode. */
  CONNECTOR_SECRET_KEY: z.string().min(1),
  /**
   * false: dispatchers leave passwords sealed the old way (v1) as they are at start, so the
   * release before, which reads only v1, still reads them during a rolling upgrade.
   */
  CONNECTOR_SECRETS_RESEAL: bool.default(true),
  /** Hosts, addresses or CIDRs an HTTP connector may reach although private or loopback. */
  CONNECTOR_ALLOWED_HOSTS: z.string().default('').transform(commaList),
  /** The only directory a connector's `tls_ca` file name is read from; unset: PEM in the URL only. */
  SMSC_CA_DIR: z.string().min(1).optional(),
  OPTOUT_KEYWORDS: z
    .string()
    .default('STOP,STOPALL,UNSUBSCRIBE,CANCEL,END,QUIT')
    .transform((s) => commaList(s).map((k) => k.toUpperCase())),
  OPTIN_KEYWORDS: z
    .string()
    .default('START,UNSTOP')
    .transform((s) => commaList(s).map((k) => k.toUpperCase())),
  /**
   * Kannel's smpp-tlv groups as `name:tag:type:length` separated by commas: the `meta-data` keys
   * sendsms clients may give (the rest are refused, as Kannel honours only what is defined).
   */
  KANNEL_SMPP_TLVS: z
    .string()
    .default('')
    .transform((text, ctx) => {
      try {
        return parseSmppTlvDefinitions(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
        return z.NEVER;
      }
    }),
  /** Browser origins (scheme://host[:port]) that may call /secure/ cross-site; empty: none. */
  CORS_ALLOWED_ORIGINS: z.string().default('').transform(commaList),
  CALLBACK_MAX_ATTEMPTS: int(1, 50).default(6),
  CALLBACK_RETRY_BASE_MS: int(10, 3600_000).default(2000),
  CALLBACK_TIMEOUT_MS: int(100, 120_000).default(5000),
  CALLBACK_HOST_CONCURRENCY: int(1, 1000).default(8),
  /**
   * Replies an sms-service route sends one number in a minute at most: two services that answer
   * each other, or a subscriber's flood, cost a bounded number of charged replies.
   */
  KANNEL_REPLIES_PER_MINUTE: int(1, 10_000).default(5),
  MAX_PARTS: int(1, 255).default(10),
  MAX_BODY_BYTES: int(1024, 512 * 1024 * 1024).default(1024 * 1024),
  MAX_BATCH_BYTES: int(1024, 1024 * 1024 * 1024).default(64 * 1024 * 1024),
  MAX_BATCH_RECIPIENTS: int(1, 10_000_000).default(1_000_000),
  MAX_SCHEDULE_DAYS: int(1, 366).default(30),
  /** Messages, their callbacks, inbound messages and batches older than this are removed; unset keeps them. */
  MESSAGE_RETENTION_DAYS: int(1, 36_500).optional(),
  /**
   * CDRs (without the text) and hourly statistics older than this are removed; unset keeps them.
   * They outlive their messages: a dropped period's messages leave their CDRs behind.
   */
  CDR_RETENTION_DAYS: int(1, 36_500).optional(),
  /** The longest time range a message or batch search, a CDR export or a statistics query may name. */
  SEARCH_MAX_DAYS: int(1, 3_660).default(SEARCH_DEFAULTS.maxDays),
  /** The built web console api-gateway serves at /console/ (apps/console/dist); unset serves none. */
  CONSOLE_DIR: z.string().min(1).optional(),
  /** A web console session unused this long ends (docs/console.md § Sessions). */
  CONSOLE_SESSION_IDLE_MINUTES: int(1, 1440).default(30),
  /** A web console session ends this long after its login, used or not. */
  CONSOLE_SESSION_MAX_HOURS: int(1, 720).default(12),
  /** How often the batch-scheduler counts the newly accepted and the newly ended messages into the hourly statistics (docs/operators.md § Statistics). */
  STATS_ROLLUP_SECONDS: int(1, 3600).default(60),
  /** Messages are counted into the statistics once accepted this long ago: those still being written, and the gateways' clocks. */
  STATS_LAG_SECONDS: int(0, 3600).default(120),
  /** A due batch that has not moved for this long is stalled (docs/reliability.md § A stalled batch). */
  BATCH_STALL_SECONDS: int(1, 30 * 86_400).default(STALL_DEFAULTS.batchSeconds),
  /** A message queued this long is overdue (submitting: BATCH_STALL_SECONDS). */
  MESSAGE_OVERDUE_SECONDS: int(1, 30 * 86_400).default(STALL_DEFAULTS.waitingSeconds),
  IDEMPOTENCY_WINDOW_SECONDS: int(1, 30 * 86_400).default(86_400),
  /**
   * Senders of an account that has no sender list: `refuse` allows only its default sender, `any`
   * allows every sender (as before sender rules existed).
   */
  UNLISTED_SENDERS: z.enum(['refuse', 'any']).default('refuse'),
  /** Customers see their messages' route and connector names (rate, message status); off: hidden. */
  SHOW_ROUTES_TO_CUSTOMERS: bool.default(false),
  /** A batch body above this size is large: an account may have one of them in reading at a time. */
  LARGE_BATCH_BYTES: int(1024, 1024 * 1024 * 1024).default(1024 * 1024),
  DATA_DIR: z.string().min(1).default('.data'),
  TZ: z
    .string()
    .refine(
      isKnownTimeZone,
      'not a time zone this runtime knows (an IANA name such as Europe/Zurich)',
    )
    .optional(),
  SWEEP_INTERVAL_MS: int(100, 3600_000).default(10_000),
  SHUTDOWN_TIMEOUT_MS: int(100, 600_000).default(25_000),
  /** First delay between attempts to reach Postgres or RabbitMQ while a service starts. */
  DEPENDENCY_RETRY_INITIAL_MS: int(10, 60_000).default(500),
  /** Cap of that delay, which doubles with each failed attempt (jitter below it). */
  DEPENDENCY_RETRY_MAX_MS: int(10, 600_000).default(30_000),
  SUBMIT_STALE_MS: int(1000, 3600_000).default(60_000),
  MAX_SUBMIT_ATTEMPTS: int(1, 100).default(5),
  INBOUND_PART_TIMEOUT_MS: int(1000, 86_400_000).default(300_000),
  LOGIN_FAILURES_PER_NAME: int(1, 1_000_000).default(10),
  LOGIN_FAILURES_PER_ADDRESS: int(1, 1_000_000).default(100),
  LOGIN_WINDOW_SECONDS: int(1, 86_400).default(900),
  KDF_CONCURRENCY: int(1, 64).default(2),
  // The SMPP server (docs/smpp-server.md). 0: a free port (tests). TLS listens only when its
  // certificate and key files are both given.
  SMPP_SERVER_PORT: int(0, 65535).default(2775),
  SMPP_SERVER_TLS_PORT: int(0, 65535).default(3550),
  SMPP_SERVER_TLS_CERT: z.string().min(1).optional(),
  SMPP_SERVER_TLS_KEY: z.string().min(1).optional(),
  SMPP_BIND_TIMEOUT_MS: int(100, 600_000).default(10_000),
  SMPP_IDLE_TIMEOUT_MS: int(1000, 3_600_000).default(120_000),
  SMPP_ENQUIRE_LINK_MS: int(1000, 3_600_000).default(30_000),
  SMPP_WINDOW: int(1, 10_000).default(100),
  SMPP_RECEIPT_EXPIRY_HOURS: int(1, 24 * 30).default(72),
  SMPP_MAX_CONNECTIONS: int(1, 100_000).default(1000),
  SMPP_PENDING_PER_ADDRESS: int(1, 100_000).default(10),
  SMPP_MAX_UNSENT_BYTES: int(65_536, 1 << 30).default(1 << 20),
  SMPP_STALLED_OUTPUT_MS: int(100, 600_000).default(30_000),
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform(commaList)
    .refine((entries) => {
      try {
        compileProxyTrust(entries);
        return true;
      } catch {
        return false;
      }
    }, 'expected IP addresses, CIDR ranges or loopback, linklocal, uniquelocal, separated by commas'),
};

export type EnvVarName = keyof typeof envVars;

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable}: ${detail}`);
  }
}

/** Validates the environment variables a service reads; the first bad one is named in the error. */
export function parseConfig<S extends z.ZodRawShape>(
  shape: S,
  env: NodeJS.ProcessEnv,
): z.output<z.ZodObject<S>> {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    const value = env[key];
    input[key] = value === '' ? undefined : value;
  }
  const result = z.object(shape).safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    const variable = String(issue.path[0] ?? 'config');
    const detail =
      input[variable] === undefined && issue.code === 'invalid_type'
        ? 'is required'
        : issue.message;
    throw new ConfigError(variable, detail);
  }
  const data = result.data as Record<string, unknown>;
  if (data[INSECURE_DEV_SECRETS_FLAG] !== true) {
    const [finding] = secretFindings(data);
    if (finding) throw new ConfigError(finding.variable, `${finding.problem}; ${SECRET_ADVICE}`);
  }
  return result.data;
}

/** For main.ts: on a bad variable, print one line and exit 1 instead of a stack trace. */
export function loadConfig<S extends z.ZodRawShape>(
  shape: S,
  env: NodeJS.ProcessEnv = process.env,
): z.output<z.ZodObject<S>> {
  try {
    return parseConfig(shape, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** What every service process reads. */
export const serviceEnv = {
  HOST: envVars.HOST,
  LOG_LEVEL: envVars.LOG_LEVEL,
  DATABASE_URL: envVars.DATABASE_URL,
  DATA_DIR: envVars.DATA_DIR,
  SHUTDOWN_TIMEOUT_MS: envVars.SHUTDOWN_TIMEOUT_MS,
  DEPENDENCY_RETRY_INITIAL_MS: envVars.DEPENDENCY_RETRY_INITIAL_MS,
  DEPENDENCY_RETRY_MAX_MS: envVars.DEPENDENCY_RETRY_MAX_MS,
  SMSGW_INSECURE_DEV_SECRETS: envVars.SMSGW_INSECURE_DEV_SECRETS,
};

/** What every service on the bus reads. */
export const busEnv = {
  AMQP_URL: envVars.AMQP_URL,
  BUS_NAMESPACE: envVars.BUS_NAMESPACE,
};

/** What the SMPP server reads for its listeners and sessions, as a service and in embedded mode. */
export const smppServerEnv = {
  SMPP_SERVER_PORT: envVars.SMPP_SERVER_PORT,
  SMPP_SERVER_TLS_PORT: envVars.SMPP_SERVER_TLS_PORT,
  SMPP_SERVER_TLS_CERT: envVars.SMPP_SERVER_TLS_CERT,
  SMPP_SERVER_TLS_KEY: envVars.SMPP_SERVER_TLS_KEY,
  SMPP_BIND_TIMEOUT_MS: envVars.SMPP_BIND_TIMEOUT_MS,
  SMPP_IDLE_TIMEOUT_MS: envVars.SMPP_IDLE_TIMEOUT_MS,
  SMPP_ENQUIRE_LINK_MS: envVars.SMPP_ENQUIRE_LINK_MS,
  SMPP_WINDOW: envVars.SMPP_WINDOW,
  SMPP_RECEIPT_EXPIRY_HOURS: envVars.SMPP_RECEIPT_EXPIRY_HOURS,
  SMPP_MAX_CONNECTIONS: envVars.SMPP_MAX_CONNECTIONS,
  SMPP_PENDING_PER_ADDRESS: envVars.SMPP_PENDING_PER_ADDRESS,
  SMPP_MAX_UNSENT_BYTES: envVars.SMPP_MAX_UNSENT_BYTES,
  SMPP_STALLED_OUTPUT_MS: envVars.SMPP_STALLED_OUTPUT_MS,
};
