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
  sourceTon: number;
  sourceNpi: number;
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

function idFormat(params: URLSearchParams, name: string): IdFormat {
  const raw = params.get(name) ?? 'auto';
  if (raw !== 'auto' && raw !== 'hex' && raw !== 'decimal')
    throw new Error(`SMSC_URL: ${name} must be auto, hex or decimal`);
  return raw;
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
]);

/** `smpp://system_id:password@host:port?window=50&throughput=0&…` (docs/configuration.md). */
export function parseSmscUrl(url: string): SmppConnectorOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('SMSC_URL: not a URL');
  }
  if (parsed.protocol !== 'smpp:') throw new Error('SMSC_URL: expected the smpp:// scheme');
  if (!parsed.hostname) throw new Error('SMSC_URL: host is missing');
  const params = parsed.searchParams;
  for (const key of params.keys())
    if (!KNOWN.has(key)) throw new Error(`SMSC_URL: unknown parameter ${key}`);
  const throughput = Number(params.get('throughput') ?? '0');
  if (!Number.isFinite(throughput) || throughput < 0)
    throw new Error('SMSC_URL: throughput must be a number ≥ 0');
  const systemId = decode(parsed.username, 'system_id');
  if (systemId.length > 15) throw new Error('SMSC_URL: system_id is longer than 15 characters');
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : 2775,
    systemId,
    password: decode(parsed.password, 'password'),
    systemType: params.get('system_type') ?? '',
    window: integer(params, 'window', 50, 1, 10_000),
    throughput,
    sourceTon: integer(params, 'source_ton', 5, 0, 255),
    sourceNpi: integer(params, 'source_npi', 0, 0, 255),
    destTon: integer(params, 'dest_ton', 1, 0, 255),
    destNpi: integer(params, 'dest_npi', 1, 0, 255),
    responseTimeoutMs: integer(params, 'response_timeout_ms', 10_000, 100, 600_000),
    enquireLinkMs: integer(params, 'enquire_link_ms', 30_000, 1000, 3_600_000),
    idFormat: idFormat(params, 'id_format'),
    receiptIdFormat: idFormat(params, 'receipt_id_format'),
  };
}
