import { randomUUID } from 'node:crypto';
import {
  DEFAULT_CONNECTOR,
  MessageSubmitGroupJobSchema,
  SUBMIT_GROUP_MAX,
  submitGroups,
  toGroupJob,
} from '../src';

describe('submitGroups and toGroupJob', () => {
  it('cuts jobs into groups of one account each, at most SUBMIT_GROUP_MAX, in arrival order per account', () => {
    const alice = randomUUID();
    const bob = randomUUID();
    const jobs = Array.from({ length: SUBMIT_GROUP_MAX * 2 + 3 }, (_, i) => ({
      accountId: i % 2 === 0 ? alice : bob,
      connector: DEFAULT_CONNECTOR,
      messageId: randomUUID(),
      segments: 1 + (i % 3),
    }));

    const groups = submitGroups(jobs);

    expect(groups.map((g) => [g[0].accountId, g.length])).toEqual([
      [alice, SUBMIT_GROUP_MAX],
      [alice, 2],
      [bob, SUBMIT_GROUP_MAX],
      [bob, 1],
    ]);
    expect(groups.flat().filter((j) => j.accountId === alice)).toEqual(
      jobs.filter((j) => j.accountId === alice),
    );
    expect(submitGroups([])).toEqual([]);
  });

  it('makes a group job the bus schema accepts, with each message and its segments', () => {
    const accountId = randomUUID();
    const group = [
      { accountId, messageId: randomUUID(), segments: 2 },
      { accountId, messageId: randomUUID(), segments: 1 },
    ];
    const job = toGroupJob(group);
    expect(MessageSubmitGroupJobSchema.parse(job)).toEqual(job);
    expect(job).toEqual({
      accountId,
      messages: group.map(({ messageId, segments }) => ({ messageId, segments })),
    });
  });
});
