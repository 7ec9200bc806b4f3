import { ConfigError, parseConfig } from '@smsgw/kit';
import { runNode } from '@smsgw/kit/testing';
import { simulatorConfigShape, simulatorOptions } from '../src/simulator-config';

const optionsFrom = (env: Record<string, string>) =>
  simulatorOptions(parseConfig(simulatorConfigShape, env));

describe('simulator environment', () => {
  it('defaults to what docker-compose relied on: receipts after 100 ms, hex answers, decimal receipts', () => {
    const options = optionsFrom({});
    expect(options).toMatchObject({
      host: '127.0.0.1',
      port: 2775,
      latencyMs: 0,
      failureRate: 0,
      throttleRate: 0,
      deliveryReceipts: true,
      receiptDelayMs: 100,
      receiptBeforeResponse: false,
      receiptSession: 'same',
      undeliverableRate: 0,
      idFormat: { response: 'hex', receipt: 'decimal', upperCase: true, leadingZeros: 0 },
    });
    expect(options).not.toHaveProperty('systemId');
    expect(
      (options.receiptStat as (to: string) => string | undefined)('41790000001'),
    ).toBeUndefined();
  });

  it('reads every option', () => {
    const options = optionsFrom({
      SIM_SYSTEM_ID: 'smsgw',
      SIM_PASSWORD: 'secret',
      SIM_LATENCY_MS: '5-50',
      SIM_FAILURE_RATE: '0.01',
      SIM_THROTTLE_RATE: '0.2',
      SIM_DELIVERY_RECEIPTS: 'false',
      SIM_RECEIPT_DELAY_MS: '0',
      SIM_RECEIPT_STAT: 'ACCEPTD',
      SIM_RECEIPT_STAT_BY_SUFFIX: '9=UNDELIV, 99=expired,8=REJECTD',
      SIM_UNDELIVERABLE_RATE: '0.5',
      SIM_RECEIPT_BEFORE_RESPONSE: 'true',
      SIM_RECEIPT_SESSION: 'other',
      SIM_ID_FORMAT_RESPONSE: 'decimal',
      SIM_ID_FORMAT_RECEIPT: 'hex',
      SIM_ID_UPPERCASE: 'false',
      SIM_ID_LEADING_ZEROS: '3',
    });
    expect(options).toMatchObject({
      systemId: 'smsgw',
      password: 'secret',
      latencyMs: [5, 50],
      failureRate: 0.01,
      throttleRate: 0.2,
      deliveryReceipts: false,
      receiptDelayMs: 0,
      receiptBeforeResponse: true,
      receiptSession: 'other',
      undeliverableRate: 0.5,
      idFormat: { response: 'decimal', receipt: 'hex', upperCase: false, leadingZeros: 3 },
    });
    const stat = options.receiptStat as (to: string) => string | undefined;
    // The longest matching suffix wins; destinations no rule names get SIM_RECEIPT_STAT.
    expect(['41790000009', '41790000099', '41790000008', '41790000001'].map(stat)).toEqual([
      'UNDELIV',
      'EXPIRED',
      'REJECTD',
      'ACCEPTD',
    ]);
  });

  const bad: [string, Record<string, string>, RegExp][] = [
    ['a rate above 1', { SIM_FAILURE_RATE: '1.5' }, /^SIM_FAILURE_RATE: /],
    [
      'a latency that is not a number or range',
      { SIM_LATENCY_MS: 'fast' },
      /^SIM_LATENCY_MS: a number of milliseconds/,
    ],
    [
      'receipts neither true nor false',
      { SIM_DELIVERY_RECEIPTS: 'maybe' },
      /^SIM_DELIVERY_RECEIPTS: /,
    ],
    ['an unknown stat', { SIM_RECEIPT_STAT: 'DELIVERED' }, /^SIM_RECEIPT_STAT: /],
    [
      'a suffix rule without digits',
      { SIM_RECEIPT_STAT_BY_SUFFIX: 'x=UNDELIV' },
      /^SIM_RECEIPT_STAT_BY_SUFFIX: "x=UNDELIV" is not <digits>=<stat>/,
    ],
    [
      'a suffix rule with an unknown stat',
      { SIM_RECEIPT_STAT_BY_SUFFIX: '9=LOST' },
      /^SIM_RECEIPT_STAT_BY_SUFFIX: /,
    ],
    ['an unknown receipt session', { SIM_RECEIPT_SESSION: 'any' }, /^SIM_RECEIPT_SESSION: /],
    ['an unknown id format', { SIM_ID_FORMAT_RESPONSE: 'base64' }, /^SIM_ID_FORMAT_RESPONSE: /],
    ['negative leading zeros', { SIM_ID_LEADING_ZEROS: '-1' }, /^SIM_ID_LEADING_ZEROS: /],
  ];
  it.each(bad)('refuses %s, naming the variable', (_name, env, message) => {
    const error = (() => {
      try {
        parseConfig(simulatorConfigShape, env);
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
  });

  it('the simulator process refuses a bad variable with one line naming it (needs the build)', async () => {
    const result = await runNode('packages/smsc/dist/simulator-main.js', [], {
      SIM_RECEIPT_SESSION: 'any',
      SIM_PORT: '0',
      SIM_HTTP_PORT: '0',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^configuration error: SIM_RECEIPT_SESSION: [^\n]+\n$/);
  });
});
