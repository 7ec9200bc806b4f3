/**
 * Every zod schema of packages/contracts, given generated hostile input: parsing may refuse it but
 * never throw. In zod a refinement still runs after an earlier check of the same value failed (a
 * pattern, a length), so one that trusts that check (BigInt, new URL, a method of an array that was
 * not one) throws, and at the edge a throw is a 500. The schemas are found by walking the package's
 * exports, so a new one is covered without being listed; inputs follow each schema's shape (its
 * fields, elements and options) with hostile values put in at every level. The seed is fixed so a
 * failure reproduces; FUZZ_SEED picks another.
 */
import fc from 'fast-check';
import * as contracts from '@smsgw/contracts';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20240611);
const RUNS_PER_SCHEMA = 400;

const hostileString = fc.oneof(
  fc.constantFrom(
    'abc',
    '%00',
    '\u0000',
    '9999-12-31 23:59:59',
    '',
    ' ',
    '-',
    '+',
    '1e400',
    '0x10',
    '-0',
    '99999999999999999999999',
    '-9223372036854775808',
    '9223372036854775808',
    'NaN',
    'Infinity',
    '\ud800',
    '😀',
    '%',
    '%E0%80%80',
    '(',
    '[',
    '(a+)+$',
    'http://',
    'http://[::1',
    'smpp://:@',
    'Europe/Nowhere',
    '__proto__',
    'constructor',
    'toString',
    '25:61',
    '2024-02-30T25:00:00Z',
    'a'.repeat(5000),
  ),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme-ascii', maxLength: 30 }),
);

/** What a JSON body, a query string or a path can carry, and some it cannot. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 2 ** 53, -(2 ** 63), 1e308, -0, 0.5, true, false, null, undefined),
  fc.constantFrom([], {}, [null], [[]], [{}], { length: 1 }, { 0: 'a', length: 1 }),
  fc.array(hostileString, { maxLength: 3 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
);

interface Schema {
  safeParse(input: unknown): { success: boolean };
}

interface Def {
  type: string;
  shape?: Record<string, Schema>;
  element?: Schema;
  innerType?: Schema;
  in?: Schema;
  options?: Schema[];
  entries?: Record<string, unknown>;
  values?: unknown[];
}

const defOf = (schema: Schema): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Input shaped like what the schema takes, with hostile values at every level. */
function inputFor(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const deeper = depth < 4;
  const hostileOr = (shaped: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 3, arbitrary: shaped }, { weight: 1, arbitrary: hostileValue });
  switch (def.type) {
    case 'object': {
      if (!deeper) return hostileValue;
      const fields = Object.fromEntries(
        Object.entries(def.shape ?? {}).map(([key, field]) => [key, inputFor(field, depth + 1)]),
      );
      return hostileOr(
        fc
          .tuple(
            fc.record(fields, { requiredKeys: [] }),
            fc.dictionary(hostileString, hostileValue, { maxKeys: 1 }),
          )
          .map(([known, extra]) => ({ ...extra, ...known })),
      );
    }
    case 'array':
      return deeper
        ? hostileOr(fc.array(inputFor(def.element!, depth + 1), { maxLength: 3 }))
        : hostileValue;
    case 'record':
      return hostileOr(fc.dictionary(hostileString, hostileValue, { maxKeys: 3 }));
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return inputFor(def.innerType!, depth);
    case 'pipe':
      return inputFor(def.in!, depth);
    case 'union':
      return fc.oneof(...def.options!.map((option) => inputFor(option, depth)));
    case 'enum':
      return hostileOr(fc.constantFrom(...Object.values(def.entries ?? {})));
    case 'literal':
      return hostileOr(fc.constantFrom(...(def.values ?? [])));
    default:
      return hostileValue;
  }
}

/** zod is the contracts' own dependency, so its schemas are recognised by their shape. */
const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' &&
  value !== null &&
  '_zod' in value &&
  typeof (value as { safeParse?: unknown }).safeParse === 'function';

/** The exported schemas, and those the exported factories make. */
const schemas: Array<[string, Schema]> = [
  ...Object.entries(contracts).filter((entry): entry is [string, Schema] => isSchema(entry[1])),
  ['intLike(1, 500)', contracts.intLike(1, 500)],
  ['storableText()', contracts.storableText()],
  ['storableText({ lineBreaks: true })', contracts.storableText({ lineBreaks: true })],
];

it('finds the request schemas among the exports', () => {
  const names = schemas.map(([name]) => name);
  for (const name of [
    'CreateAccountSchema',
    'CreditSchema',
    'SendRequestSchema',
    'BatchRequestSchema',
    'MtRouteInputSchema',
    'MoRouteSchema',
    'ConnectorInputSchema',
    'SenderRulesSchema',
    'InboundListQuerySchema',
  ])
    expect(names).toContain(name);
});

it.each(schemas)('%s refuses hostile input without throwing', (name, schema) => {
  const thrown: string[] = [];
  for (const input of fc.sample(inputFor(schema), { numRuns: RUNS_PER_SCHEMA, seed: SEED })) {
    try {
      schema.safeParse(input);
    } catch (err) {
      thrown.push(
        `${(err as Error).message.slice(0, 120)} for ${JSON.stringify(input)?.slice(0, 200)}`,
      );
    }
  }
  expect({ name, seed: SEED, thrown: thrown.slice(0, 5), count: thrown.length }).toEqual({
    name,
    seed: SEED,
    thrown: [],
    count: 0,
  });
});

it('refuses an sms_count that is not an integer with a 400-shaped issue, on create and credit', () => {
  for (const smsCount of ['abc', '%00', '9999-12-31 23:59:59', '1.5', '', '-']) {
    const created = contracts.CreateAccountSchema.safeParse({
      username: 'someone',
      password: 'long-enough',
      sms_count: smsCount,
    });
    expect({ smsCount, success: created.success }).toEqual({ smsCount, success: false });
    const credited = contracts.CreditSchema.safeParse({ amount: '1', sms_count: smsCount });
    expect({ smsCount, success: credited.success }).toEqual({ smsCount, success: false });
  }
});
