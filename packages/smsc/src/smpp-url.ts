import { readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import { NO_ANSWER_POLICIES, type NoAnswerPolicy } from './smsc-connector';

export type IdFormat = 'auto' | 'hex' | 'decimal';

export interface SmppConnectorOptions {
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType: string;
  /** Most submit_sm awaiting their response at once. */
  window: number;
  /** Cluster-wide messages per second for this connector; 0 = unlimited. */
  throughput: number;
  /** Fixed for every message when set; otherwise chosen per message from the sender (sourceAddress). */
  sourceTon?: number | undefined;
  sourceNpi?: number | undefined;
  destTon: number;
  destNpi: number;
  responseTimeoutMs: number;
  enquireLinkMs: number;
  /**
   * How the SMSC writes ids in submit_sm_resp and in receipts (docs/architecture.md § Receipts and
   * message ids: they often differ).
   */
  idFormat: IdFormat;
  receiptIdFormat: IdFormat;
  /** A submit_sm written and never answered: an unknown outcome (default) or sent again. */
  onNoAnswer: NoAnswerPolicy;
  /** SMPP over TLS (`smpps://`): whom to trust and which name the certificate must carry. */
  tls?: SmppTlsOptions | undefined;
}

export interface SmppTlsOptions {
  /** PEM of the CAs to trust (`tls_ca`: the PEM, or a file of SMSC_CA_DIR); unset: the system's. */
  ca?: string;
  /** The name the certificate must carry (`tls_servername`); unset: the host. */
  servername?: string;
  /** false only with `tls_insecure=true`, for tests against self-signed certificates. */
  rejectUnauthorized: boolean;
}

function integer(
  params: URLSearchParams,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = params.get(name);
  if (raw === null || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`SMSC_URL: ${name} must be a whole number from ${min} to ${max}`);
  return value;
}

function optionalInteger(
  params: URLSearchParams,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const raw = params.get(name);
  return raw === null || raw === '' ? undefined : integer(params, name, 0, min, max);
}

function idFormat(params: URLSearchParams, name: string): IdFormat {
  const raw = params.get(name) ?? 'auto';
  if (raw !== 'auto' && raw !== 'hex' && raw !== 'decimal')
    throw new Error(`SMSC_URL: ${name} must be auto, hex or decimal`);
  return raw;
}

/** `on_no_answer` of an SMSC URL (SMPP or HTTP): unknown (default) or resend. */
export function noAnswerPolicy(params: URLSearchParams): NoAnswerPolicy {
  const raw = params.get('on_no_answer') ?? 'unknown';
  const policy = NO_ANSWER_POLICIES.find((p) => p === raw);
  if (!policy) throw new Error(`SMSC_URL: on_no_answer must be ${NO_ANSWER_POLICIES.join(' or ')}`);
  return policy;
}

function decode(raw: string, name: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new Error(`SMSC_URL: ${name} has a malformed percent-encoding`);
  }
}

const KNOWN = new Set([
  'window',
  'throughput',
  'system_type',
  'source_ton',
  'source_npi',
  'dest_ton',
  'dest_npi',
  'response_timeout_ms',
  'enquire_link_ms',
  'id_format',
  'receipt_id_format',
  'on_no_answer',
]);
const TLS_PARAMS = ['tls_ca', 'tls_servername', 'tls_insecure'];

/** Where a connector URL's `tls_ca` may come from. */
export interface CaSettings {
  /** SMSC_CA_DIR: the only directory a `tls_ca` file name is read from; unset: PEM only. */
  caDir?: string | undefined;
  /**
   * false where the URL is only checked (the admin API): the file lives where dispatchers run, so
   * only its name is judged there.
   */
  readCa?: boolean;
}

/**
 * `tls_ca` is the PEM itself, or the name of a file in SMSC_CA_DIR: an admin must not be able to
 * make a dispatcher read any file it can (a key, a secret) by naming it as a CA.
 */
function certificateAuthority(value: string, settings: CaSettings): string | undefined {
  if (value.trimStart().startsWith('-----BEGIN ')) {
    if (!value.includes('-----END ')) throw new Error('SMSC_URL: tls_ca is not a complete PEM');
    return value;
  }
  if (isAbsolute(value) || value.split(/[/\\]/).some((part) => part === '..' || part === ''))
    throw new Error(
      'SMSC_URL: tls_ca must be the PEM itself or a file name inside SMSC_CA_DIR, without a path',
    );
  if (settings.readCa === false) return undefined;
  if (settings.caDir === undefined)
    throw new Error('SMSC_URL: tls_ca names a file, but SMSC_CA_DIR is not set; give the PEM');
  let file: string;
  try {
    const dir = realpathSync(settings.caDir);
    file = realpathSync(join(dir, value));
    // A link inside the directory must not lead out of it.
    if (!file.startsWith(dir + sep)) throw new Error('outside');
  } catch {
    throw new Error(`SMSC_URL: tls_ca ${value} is not a readable file inside SMSC_CA_DIR`);
  }
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new Error(`SMSC_URL: tls_ca ${value} cannot be read`);
  }
}

/** The TLS settings of an smpps:// URL; none of them is allowed on smpp://. */
function tlsOptions(
  secure: boolean,
  params: URLSearchParams,
  settings: CaSettings,
): SmppTlsOptions | undefined {
  if (!secure) {
    const misplaced = TLS_PARAMS.find((p) => params.has(p));
    if (misplaced) throw new Error(`SMSC_URL: ${misplaced} needs the smpps:// scheme`);
    return undefined;
  }
  const insecure = params.get('tls_insecure') ?? 'false';
  if (insecure !== 'true' && insecure !== 'false')
    throw new Error('SMSC_URL: tls_insecure must be true or false');
  const caParam = params.get('tls_ca');
  if (caParam === '') throw new Error('SMSC_URL: tls_ca is empty');
  const ca = caParam === null ? undefined : certificateAuthority(caParam, settings);
  const servername = params.get('tls_servername');
  return {
    ...(ca !== undefined && { ca }),
    ...(servername && { servername }),
    rejectUnauthorized: insecure !== 'true',
  };
}

/** How a connector's traffic crosses the network, for warnings and the admin API. */
export type TransportSecurity = 'tls' | 'tls-unverified' | 'plain';

/** The transport security a connector URL asks for (smpp/smpps/http/https); undefined: not one. */
export function transportSecurity(url: string): TransportSecurity | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol === 'smpp:' || parsed.protocol === 'http:') return 'plain';
  if (parsed.protocol === 'https:') return 'tls';
  if (parsed.protocol !== 'smpps:') return undefined;
  return parsed.searchParams.get('tls_insecure') === 'true' ? 'tls-unverified' : 'tls';
}

/** Traffic to these hosts stays on this machine: plain transport there is no exposure. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/**
 * Why a connector is insecure, for the warning logged when it starts and when an admin stores it;
 * undefined when it is not (TLS checked, or a loopback host).
 */
export function insecureTransportWarning(
  security: TransportSecurity | undefined,
  host: string,
): string | undefined {
  if (security === 'tls-unverified')
    return 'INSECURE: tls_insecure=true, the SMSC certificate is not checked; anyone on the path can read and change the traffic';
  if (security !== 'plain' || isLoopbackHost(host)) return undefined;
  return 'INSECURE: the connector does not use TLS; its credentials and messages cross the network readable';
}

/**
 * `smpp://system_id:password@host:port?window=50&throughput=0&…`, or `smpps://…` for SMPP over TLS
 * (docs/configuration.md).
 */
export function parseSmscUrl(url: string, settings: CaSettings = {}): SmppConnectorOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('SMSC_URL: not a URL');
  }
  if (parsed.protocol !== 'smpp:' && parsed.protocol !== 'smpps:')
    throw new Error('SMSC_URL: expected the smpp:// or smpps:// scheme');
  const secure = parsed.protocol === 'smpps:';
  if (!parsed.hostname) throw new Error('SMSC_URL: host is missing');
  const params = parsed.searchParams;
  for (const key of params.keys())
    if (!KNOWN.has(key) && !TLS_PARAMS.includes(key))
      throw new Error(`SMSC_URL: unknown parameter ${key}`);
  const throughput = Number(params.get('throughput') ?? '0');
  if (!Number.isFinite(throughput) || throughput < 0)
    throw new Error('SMSC_URL: throughput must be a number ≥ 0');
  const systemId = decode(parsed.username, 'system_id');
  if (systemId.length > 15) throw new Error('SMSC_URL: system_id is longer than 15 characters');
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : secure ? 3550 : 2775,
    systemId,
    password: decode(parsed.password, 'password'),
    systemType: params.get('system_type') ?? '',
    window: integer(params, 'window', 50, 1, 10_000),
    throughput,
    sourceTon: optionalInteger(params, 'source_ton', 0, 255),
    sourceNpi: optionalInteger(params, 'source_npi', 0, 255),
    destTon: integer(params, 'dest_ton', 1, 0, 255),
    destNpi: integer(params, 'dest_npi', 1, 0, 255),
    responseTimeoutMs: integer(params, 'response_timeout_ms', 10_000, 100, 600_000),
    enquireLinkMs: integer(params, 'enquire_link_ms', 30_000, 1000, 3_600_000),
    idFormat: idFormat(params, 'id_format'),
    receiptIdFormat: idFormat(params, 'receipt_id_format'),
    onNoAnswer: noAnswerPolicy(params),
    tls: tlsOptions(secure, params, settings),
  };
}
