import { SingleBar, Presets } from 'cli-progress';
import type { BatchStatus } from '@smsgw/contracts';

type Status = BatchStatus['data'];

/**
 * Follows a batch until it is completed or cancelled, drawing a bar of messages with an outcome
 * (sent, failed or cancelled) out of the total.
 */
export async function followBatch(
  fetchStatus: () => Promise<Status>,
  io: { progress?: NodeJS.WritableStream; pollMs?: number },
): Promise<Status> {
  let status = await fetchStatus();
  const bar = io.progress
    ? new SingleBar(
        {
          stream: io.progress,
          format: '{bar} {value}/{total} | sent {sent} failed {failed} | {state}',
          hideCursor: true,
          noTTYOutput: true,
          notTTYSchedule: 200,
        },
        Presets.shades_classic,
      )
    : undefined;
  const done = (s: Status) => s.counts.sent + s.counts.failed + s.counts.cancelled;
  bar?.start(status.counts.total, done(status), {
    sent: status.counts.sent,
    failed: status.counts.failed,
    state: status.state,
  });
  while (status.state !== 'completed' && status.state !== 'cancelled') {
    await new Promise((r) => setTimeout(r, io.pollMs ?? 500));
    status = await fetchStatus();
    bar?.update(done(status), {
      sent: status.counts.sent,
      failed: status.counts.failed,
      state: status.state,
    });
  }
  bar?.stop();
  return status;
}
