import { PgliteDb, migrate } from '@smsgw/kit';
import {
  accountThroughput,
  findCustomerGroup,
  findSenderRules,
  insertAccount,
  putCustomerGroup,
  replaceSenderRules,
  setAccountPricing,
} from '@smsgw/store';

/** A customer group's defaults for its accounts without their own (migration 043). */
let db: PgliteDb;
beforeAll(async () => {
  db = await PgliteDb.open();
  await migrate(db);
});
afterAll(() => db?.close());

const account = async (username: string, throughput = 0): Promise<string> =>
  (await insertAccount(db, {
    username,
    passwordHash: 'x',
    balance: null,
    smsCount: null,
    rate: null,
    defaultFrom: null,
    throughput,
  }))!.id;

describe("a customer group's defaults", () => {
  it('caps and limits the senders of its accounts that have none of their own, and only those', async () => {
    await putCustomerGroup(db, 'gold', null, {
      throughput: 7,
      senders: { policy: 'refuse', patterns: ['Brand', '4179*'] },
    });
    const gold = (await findCustomerGroup(db, 'gold'))!;
    expect(gold).toMatchObject({
      throughput: 7,
      sender_policy: 'refuse',
      senders: ['Brand', '4179*'],
    });
    const plain = await account('plain');
    const own = await account('own', 3);
    const outside = await account('outside');
    for (const username of ['plain', 'own'])
      await setAccountPricing(db, username, { groupId: gold.id });
    await replaceSenderRules(db, own, 'replace', ['Mine']);

    expect(await accountThroughput(db, plain)).toBe(7);
    expect(await accountThroughput(db, own)).toBe(3);
    expect(await accountThroughput(db, outside)).toBe(0);
    expect(await findSenderRules(db, plain)).toMatchObject({
      policy: 'refuse',
      patterns: ['Brand', '4179*'],
      from_group: 'gold',
    });
    expect(await findSenderRules(db, own)).toMatchObject({
      policy: 'replace',
      patterns: ['Mine'],
      from_group: null,
    });
    expect(await findSenderRules(db, outside)).toMatchObject({
      policy: null,
      patterns: [],
      from_group: null,
    });

    // A PUT of the group without them takes them away.
    await putCustomerGroup(db, 'gold', null);
    expect(await accountThroughput(db, plain)).toBe(0);
    expect(await findSenderRules(db, plain)).toMatchObject({ policy: null, from_group: null });
  });
});
