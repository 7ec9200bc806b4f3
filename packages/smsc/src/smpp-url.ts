import { readFileSync } from 'node:fs';
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
  /** PEM of the CAs to trust (`tls_ca`, a file); unset: the system's. */
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

/** The TLS settings of an smpps:// URL; none of them is allowed on smpp://. */
function tlsOptions(secure: boolean, params: URLSearchParams): SmppTlsOptions | undefined {
  if (!secure) {
    const misplaced = TLS_PARAMS.find((p) => params.has(p));
    if (misplaced) throw new Error(`SMSC_URL: ${misplaced} needs the smpps:// scheme`);
    return undefined;
  }
  const insecure = params.get('tls_insecure') ?? 'false';
  if (insecure !== 'true' && insecure !== 'false')
    throw new Error('SMSC_URL: tls_insecure must be true or false');
  const caFile = params.get('tls_ca');
  let ca: string | undefined;
  if (caFile) {
    try {
      ca = readFileSync(caFile, 'utf8');
    } catch {
      throw new Error(`SMSC_URL: tls_ca ${caFile} cannot be read`);
    }
  }
  const servername = params.get('tls_servername');
  return {
    ...(ca !== undefined && { ca }),
    ...(servername && { servername }),
    rejectUnauthorized: insecure !== 'true',
  };
}

/**
 * `smpp://system_id:password@host:port?window=50&throughput=0&…`, or `smpps://…` for SMPP over TLS
 * (docs/configuration.md).
 */
export function parseSmscUrl(url: string): SmppConnectorOptions {
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
    tls: tlsOptions(secure, params),
  };
}
