import { z } from 'zod';
import type { SmppSimulatorOptions } from './smpp-simulator';

const rate = z.coerce.number().min(0).max(1).default(0);
const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true');
const idBase = z.enum(['hex', 'decimal']);

/** `20`, or a range `5-50` drawn from uniformly; at most an hour. */
const milliseconds = (fallback: string, message: string) =>
  z
    .string()
    .regex(/^\d+(-\d+)?$/, message)
    .default(fallback)
    .transform((v): number | [number, number] => {
      const [min, max] = v.split('-').map(Number);
      return max === undefined ? min : [min, Math.max(min, max)];
    })
    .refine((v) => (Array.isArray(v) ? v[1] : v) <= 3_600_000, 'at most 3600000 (an hour)');

/** The stats SMPP 3.4 Appendix B names; anything else would only test a typo. */
export const RECEIPT_STATS = [
  'DELIVRD',
  'EXPIRED',
  'DELETED',
  'UNDELIV',
  'ACCEPTD',
  'UNKNOWN',
  'REJECTD',
  'ENROUTE',
] as const;
const receiptStat = z.enum(RECEIPT_STATS);

/** `9=UNDELIV,00=EXPIRED`: destinations ending in the digits get that stat; the longest suffix wins. */
const statBySuffix = z
  .string()
  .default('')
  .transform((raw, ctx) => {
    const rules: [string, (typeof RECEIPT_STATS)[number]][] = [];
    for (const item of raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const [suffix, stat] = item.split('=').map((s) => s.trim());
      const parsed = receiptStat.safeParse(stat?.toUpperCase());
      if (!suffix || !/^\d+$/.test(suffix) || !parsed.success) {
        ctx.addIssue({
          code: 'custom',
          message: `"${item}" is not <digits>=<stat> with stat one of ${RECEIPT_STATS.join(', ')}`,
        });
        return z.NEVER;
      }
      rules.push([suffix, parsed.data]);
    }
    return rules.sort((a, b) => b[0].length - a[0].length);
  });

/** The simulator's environment (docker-compose, k8s, manual trials); docs/configuration.md lists it. */
export const simulatorConfigShape = {
  SIM_HOST: z.string().default('127.0.0.1'),
  SIM_PORT: z.coerce.number().int().min(0).max(65535).default(2775),
  SIM_HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8025),
  /** Bearer token of the control endpoint; unset, it answers callers on its own machine only. */
  SIM_CONTROL_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  SIM_SYSTEM_ID: z.string().optional(),
  SIM_PASSWORD: z.string().optional(),
  /** Milliseconds before each submit_sm_resp: `20`, or a range `5-50`. */
  SIM_LATENCY_MS: milliseconds('0', 'a number of milliseconds or a range like 5-50'),
  SIM_FAILURE_RATE: rate,
  SIM_THROTTLE_RATE: rate,
  SIM_DELIVERY_RECEIPTS: flag(true),
  /** Milliseconds between the submit_sm_resp and its receipt: `100`, or a range `50-500`. */
  SIM_RECEIPT_DELAY_MS: milliseconds('100', 'a number of milliseconds or a range like 50-500'),
  /** Unset: DELIVRD, or UNDELIV drawn at SIM_UNDELIVERABLE_RATE. */
  SIM_RECEIPT_STAT: receiptStat.optional(),
  SIM_RECEIPT_STAT_BY_SUFFIX: statBySuffix,
  SIM_UNDELIVERABLE_RATE: rate,
  SIM_RECEIPT_BEFORE_RESPONSE: flag(false),
  SIM_RECEIPT_SESSION: z.enum(['same', 'other']).default('same'),
  SIM_ID_FORMAT_RESPONSE: idBase.default('hex'),
  SIM_ID_FORMAT_RECEIPT: idBase.default('decimal'),
  SIM_ID_UPPERCASE: flag(true),
  SIM_ID_LEADING_ZEROS: z.coerce.number().int().min(0).max(16).default(0),
  LOG_LEVEL: z.string().default('info'),
};

export type SimulatorConfig = z.output<z.ZodObject<typeof simulatorConfigShape>>;

/** The SmppSimulator options the environment asks for. */
export function simulatorOptions(config: SimulatorConfig): SmppSimulatorOptions {
  const bySuffix = config.SIM_RECEIPT_STAT_BY_SUFFIX;
  // undefined leaves the stat to the simulator's undeliverableRate draw.
  const statFor = (to: string): string | undefined =>
    bySuffix.find(([suffix]) => to.endsWith(suffix))?.[1] ?? config.SIM_RECEIPT_STAT;
  const options: SmppSimulatorOptions = {
    host: config.SIM_HOST,
    port: config.SIM_PORT,
    ...(config.SIM_SYSTEM_ID !== undefined && { systemId: config.SIM_SYSTEM_ID }),
    ...(config.SIM_PASSWORD !== undefined && { password: config.SIM_PASSWORD }),
    latencyMs: config.SIM_LATENCY_MS,
    failureRate: config.SIM_FAILURE_RATE,
    throttleRate: config.SIM_THROTTLE_RATE,
    deliveryReceipts: config.SIM_DELIVERY_RECEIPTS,
    receiptBeforeResponse: config.SIM_RECEIPT_BEFORE_RESPONSE,
    receiptSession: config.SIM_RECEIPT_SESSION,
    undeliverableRate: config.SIM_UNDELIVERABLE_RATE,
    receiptStat: statFor,
    idFormat: {
      response: config.SIM_ID_FORMAT_RESPONSE,
      receipt: config.SIM_ID_FORMAT_RECEIPT,
      upperCase: config.SIM_ID_UPPERCASE,
      leadingZeros: config.SIM_ID_LEADING_ZEROS,
    },
  };
  // The simulator reads receiptDelayMs at each receipt, so a range is a getter drawing each delay.
  const delay = config.SIM_RECEIPT_DELAY_MS;
  Object.defineProperty(options, 'receiptDelayMs', {
    enumerable: true,
    get: Array.isArray(delay)
      ? () => delay[0] + Math.random() * (delay[1] - delay[0])
      : () => delay,
  });
  return options;
}
