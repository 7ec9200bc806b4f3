/**
 * Generated hostile input for the fuzz tests: values of every JSON type that parsers, databases
 * and SMSCs choke on, and input shaped like what a zod schema takes (its fields, elements and
 * options) with such values put in at every level, so that generated requests get past the first
 * check and reach the ones behind it.
 */
import fc from 'fast-check';

export const hostileString = fc.oneof(
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
    '\ufeff',
    '\u202e',
    '😀',
    '%',
    '%E0%80%80',
    '(',
    '[',
    '(a+)+$',
    'http://',
    'http://[::1',
    'http://127.0.0.1:1/x',
    'smpp://:@',
    'smpp://u:p@127.0.0.1:1?tls_ca=/etc/passwd',
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

/** What a JSON body, a form, a query string or a path can carry, and some it cannot. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 2 ** 53, -(2 ** 63), 1e308, -0, 0.5, true, false, null, undefined),
  fc.constantFrom([], {}, [null], [[]], [{}], { length: 1 }, { 0: 'a', length: 1 }),
  fc.array(hostileString, { maxLength: 3 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
);

/** A zod schema, recognised by its shape: zod is the contracts' dependency, not the tests'. */
export interface Schema {
  safeParse(input: unknown): { success: boolean };
}

export const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' &&
  value !== null &&
  '_zod' in value &&
  typeof (value as { safeParse?: unknown }).safeParse === 'function';

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
export function shapedInput(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const deeper = depth < 4;
  const hostileOr = (shaped: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 3, arbitrary: shaped }, { weight: 1, arbitrary: hostileValue });
  switch (def.type) {
    case 'object': {
      if (!deeper) return hostileValue;
      const fields = Object.fromEntries(
        Object.entries(def.shape ?? {}).map(([key, field]) => [key, shapedInput(field, depth + 1)]),
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
        ? hostileOr(fc.array(shapedInput(def.element!, depth + 1), { maxLength: 3 }))
        : hostileValue;
    case 'record':
      return hostileOr(fc.dictionary(hostileString, hostileValue, { maxKeys: 3 }));
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return shapedInput(def.innerType!, depth);
    case 'pipe':
      return shapedInput(def.in!, depth);
    case 'union':
      return fc.oneof(...def.options!.map((option) => shapedInput(option, depth)));
    case 'enum':
      return hostileOr(fc.constantFrom(...Object.values(def.entries ?? {})));
    case 'literal':
      return hostileOr(fc.constantFrom(...(def.values ?? [])));
    default:
      return hostileValue;
  }
}

/** Every byte of the UTF-8 form percent-encoded (encodeURIComponent throws on a lone surrogate). */
export const percentEncoded = (s: string): string =>
  [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/** A path segment as a client could send it, already percent-encoded where it needs to be. */
export const hostileSegment = fc.oneof(
  fc.constantFrom(
    '%00',
    '%ff%fe',
    '..%2f..',
    '%2e%2e',
    '%E0%80%80',
    '%ED%A0%80',
    '%',
    '%zz',
    '%20',
    'a'.repeat(5000),
    '0',
    '-1',
  ),
  fc.webSegment(),
  hostileString.map(percentEncoded),
);
