import { boundedCache } from '../src/bounded-cache';

describe('boundedCache', () => {
  it('holds at most its entries, dropping the least recently used', () => {
    const cache = boundedCache<string, number>(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect(cache.has('b')).toBe(false);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
  });

  it('keeps its bound past many more entries than it holds', () => {
    const cache = boundedCache<number, number>(1_000);
    for (let i = 0; i < 25_000; i++) cache.set(i, i);
    expect(cache.size).toBe(1_000);
    expect(cache.get(24_999)).toBe(24_999);
    expect(cache.get(23_999)).toBeUndefined();
  });

  it('forgets an entry once its time is up', async () => {
    const cache = boundedCache<string, string>(10, 20);
    cache.set('k', 'v');
    expect(cache.get('k')).toBe('v');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
