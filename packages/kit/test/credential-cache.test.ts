import { CredentialCache } from '../src';

describe('CredentialCache', () => {
  const cache = () => new CredentialCache<string>({ max: 100, ttlMs: 60_000, settleMs: 60_000 });

  it('drops every entry of an account, and only those', () => {
    const c = cache();
    c.set('a1', 'alice', 'first', c.ticket());
    c.set('a2', 'alice', 'second', c.ticket());
    c.set('b1', 'bob', 'third', c.ticket());
    c.forgetAccount('alice');
    expect([c.get('a1'), c.get('a2'), c.get('b1')]).toEqual([undefined, undefined, 'third']);
  });

  it('does not store an answer looked up before a change was announced', () => {
    const c = cache();
    const ticket = c.ticket();
    c.forgetAccount('alice');
    c.set('a1', 'alice', 'stale', ticket);
    c.set('b1', 'bob', 'stale too: any change may be the one it read before', ticket);
    expect([c.get('a1'), c.get('b1')]).toEqual([undefined, undefined]);
  });

  it('stores nothing about a changed account while it settles', () => {
    const c = cache();
    c.forgetAccount('alice');
    c.set('a1', 'alice', 'maybe from a replica that has not heard', c.ticket());
    c.set('b1', 'bob', 'fine', c.ticket());
    expect([c.get('a1'), c.get('b1')]).toEqual([undefined, 'fine']);
  });

  it('clears everything when changes may have been missed', () => {
    const c = cache();
    const ticket = c.ticket();
    c.set('b1', 'bob', 'kept until the gap', ticket);
    c.clear();
    c.set('b2', 'bob', 'looked up before the gap', ticket);
    expect([c.get('b1'), c.get('b2')]).toEqual([undefined, undefined]);
  });
});
