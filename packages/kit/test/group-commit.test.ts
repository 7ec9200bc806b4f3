import { GroupCommit } from '../src/group-commit';

describe('GroupCommit', () => {
  it('sends calls made while a flush is in flight as one group, answering each caller its own result', async () => {
    const groups: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const commit = new GroupCommit<number, number>(async (items) => {
      groups.push(items);
      if (groups.length === 1) await gate;
      return items.map((n) => n * 10);
    });
    const first = commit.add(1);
    await new Promise((r) => setImmediate(r));
    const later = [commit.add(2), commit.add(3), commit.add(4)];
    release();
    expect(await first).toBe(10);
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
    expect(groups).toEqual([[1], [2, 3, 4]]);
  });

  it('caps a group at maxSize', async () => {
    const sizes: number[] = [];
    const commit = new GroupCommit<number, number>(
      (items) => {
        sizes.push(items.length);
        return Promise.resolve(items);
      },
      { maxSize: 3 },
    );
    await Promise.all(Array.from({ length: 7 }, (_, i) => commit.add(i)));
    expect(sizes).toEqual([3, 3, 1]);
  });

  it('fails only the callers of the group whose flush threw', async () => {
    let calls = 0;
    const commit = new GroupCommit<string, string>(
      (items) => {
        calls++;
        if (items.includes('bad')) throw new Error('constraint violated');
        return Promise.resolve(items);
      },
      { maxSize: 2 },
    );
    const results = await Promise.allSettled([
      commit.add('bad'),
      commit.add('x'),
      commit.add('ok'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason).toEqual(new Error('constraint violated'));
    expect(calls).toBe(2);
    expect(commit.size).toBe(0);
  });

  it('refuses a flush that answers the wrong number of results', async () => {
    const commit = new GroupCommit<number, number>(() => Promise.resolve([]));
    await expect(commit.add(1)).rejects.toThrow('answered 0 results for 1 items');
  });

  it('with lingerMs, holds a group for later calls until it is full or the wait is over', async () => {
    const groups: number[][] = [];
    const flush = (items: number[]) => {
      groups.push(items);
      return Promise.resolve(items);
    };
    const held = new GroupCommit<number, number>(flush, { maxSize: 3, lingerMs: 600_000 });
    const firstTwo = [held.add(1), held.add(2)];
    await new Promise((r) => setImmediate(r));
    expect(groups).toEqual([]);
    expect(await Promise.all([...firstTwo, held.add(3)])).toEqual([1, 2, 3]);
    expect(groups).toEqual([[1, 2, 3]]);

    const brief = new GroupCommit<number, number>(flush, { maxSize: 3, lingerMs: 1 });
    expect(await brief.add(4)).toBe(4);
    expect(groups).toEqual([[1, 2, 3], [4]]);
  });
});
