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
import { isSchema, shapedInput, type Schema } from '../support/hostile-input';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20240611);
const RUNS_PER_SCHEMA = 400;

/** The exported schemas, and those the exported factories make. */
const schemas: Array<[string, Schema]> = [
  ...Object.entries(contracts as Record<string, unknown>).flatMap(([name, value]) =>
    isSchema(value) ? [[name, value] as [string, Schema]] : [],
  ),
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
  for (const input of fc.sample(shapedInput(schema), { numRuns: RUNS_PER_SCHEMA, seed: SEED })) {
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
