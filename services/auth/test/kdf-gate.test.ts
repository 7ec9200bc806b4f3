import { KdfBusyError, KdfGate } from '../src/kdf-gate';

/** A piece of work that finishes when the test says so. */
function held(): { work: () => Promise<string>; release: () => void; started: () => boolean } {
  let release!: () => void;
  let started = false;
  const done = new Promise<void>((r) => (release = r));
  return {
    work: async () => {
      started = true;
      await done;
      return 'ok';
    },
    release: () => release(),
    started: () => started,
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('KdfGate', () => {
  it('runs at most `concurrency` at once; the next starts when one finishes', async () => {
    const gate = new KdfGate(2, 4);
    const jobs = [held(), held(), held()];
    const results = jobs.map((j) => gate.run(j.work));
    await tick();
    expect(jobs.map((j) => j.started())).toEqual([true, true, false]);
    expect(gate.load).toEqual({ active: 2, waiting: 1 });
    jobs[0].release();
    await tick();
    expect(jobs[2].started()).toBe(true);
    jobs[1].release();
    jobs[2].release();
    await expect(Promise.all(results)).resolves.toEqual(['ok', 'ok', 'ok']);
    expect(gate.load).toEqual({ active: 0, waiting: 0 });
  });

  it('refuses at once when the waiting line is full, and never runs the refused work', async () => {
    const gate = new KdfGate(1, 2);
    const jobs = [held(), held(), held()];
    const admitted = jobs.map((j) => gate.run(j.work));
    const refused = held();
    await expect(gate.run(refused.work)).rejects.toBeInstanceOf(KdfBusyError);
    expect(refused.started()).toBe(false);
    for (const j of jobs) j.release();
    await Promise.all(admitted);
  });

  it('frees the slot when the work throws', async () => {
    const gate = new KdfGate(1, 0);
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run(() => Promise.resolve(1))).resolves.toBe(1);
  });
});

describe('KdfGate priorities', () => {
  it('lets normal checks pass suspect ones, and gives a suspect place to a normal one', async () => {
    const gate = new KdfGate(1, 2);
    const first = held();
    const running = gate.run(first.work);
    const suspects = [held(), held()];
    const order: string[] = [];
    const waitingSuspects = suspects.map((j, i) =>
      gate
        .run(j.work, () => true)
        .then(
          () => order.push(`suspect-${i}`),
          (err: unknown) => order.push(err instanceof KdfBusyError ? `refused-${i}` : 'error'),
        ),
    );
    // The line is full of suspects: a normal check takes the newest one's place.
    const normal = held();
    const n = gate.run(normal.work).then(() => order.push('normal'));
    await tick();
    expect(order).toEqual(['refused-1']);
    // A suspect check finds no room.
    await expect(
      gate.run(
        () => Promise.resolve(1),
        () => true,
      ),
    ).rejects.toBeInstanceOf(KdfBusyError);
    first.release();
    await tick();
    expect([normal.started(), suspects[0].started()]).toEqual([true, false]);
    normal.release();
    await tick();
    expect(suspects[0].started()).toBe(true);
    suspects[0].release();
    await Promise.all([running, n, ...waitingSuspects]);
    expect(order).toEqual(['refused-1', 'normal', 'suspect-0']);
  });
});
