import { TOPICS, submitGroups, toGroupJob } from '@smsgw/contracts';
import type { Bus } from '@smsgw/kit';
import type { MessageJobRow } from '@smsgw/store';

/**
 * Publishes the jobs of waiting messages, as group jobs to each message's current connector (the
 * sweep, a failover, a connector that starts again); resolves once the broker confirmed them all.
 * `published` is told of each group, for counting.
 */
export async function publishSubmitJobs(
  bus: Pick<Bus, 'publish'>,
  rows: readonly MessageJobRow[],
  published: (connector: string, messages: number) => void = () => undefined,
): Promise<void> {
  const groups = submitGroups(
    rows.map((r) => ({
      accountId: r.account_id,
      messageId: r.id,
      segments: r.segments,
      connector: r.connector,
    })),
  );
  await Promise.all(
    groups.map(async (group) => {
      await bus.publish(TOPICS.messageSubmitGroup, toGroupJob(group), group[0].connector);
      published(group[0].connector, group.length);
    }),
  );
}
