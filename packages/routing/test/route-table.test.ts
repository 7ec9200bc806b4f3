import type { MtRouteRow } from '@smsgw/store';
import { RouteTable, inTimeWindow } from '@smsgw/routing';

function route(name: string, position: number, extra: Partial<MtRouteRow> = {}): MtRouteRow {
  return {
    name,
    position,
    kind: 'static',
    targets: [{ connector: `${name}-link` }],
    filters: {},
    reroute_on: [],
    price: null,
    ...extra,
  };
}

const message = { to: '33612345678', accountUsername: 'acme', from: 'ACME', tags: [] };

describe('RouteTable', () => {
  it('sends everything to the default connector while there are no routes', () => {
    expect(new RouteTable([]).decide(message)).toEqual({
      route: null,
      connectors: ['default'],
      price: null,
    });
  });

  it("serves a customer group's accounts by the routes that name the group, and no one else", () => {
    const table = new RouteTable([
      route('france', 20, { filters: { prefixes: ['33'] } }),
      route('france-gold', 10, { filters: { prefixes: ['33'], groups: ['gold'] } }),
    ]);
    expect(table.filtersByGroup).toBe(true);
    expect(table.decide({ ...message, accountGroup: 'gold' })?.route).toBe('france-gold');
    expect(table.decide({ ...message, accountGroup: 'silver' })?.route).toBe('france');
    expect(table.decide({ ...message, accountGroup: null })?.route).toBe('france');
    expect(table.decide(message)?.route).toBe('france');
    expect(new RouteTable([route('france', 20)]).filtersByGroup).toBe(false);
  });

  it('takes the first route by position whose filters all match, prefix or not', () => {
    const table = new RouteTable([
      route('catch-all', 100),
      route('france', 20, { filters: { prefixes: ['33'] }, price: '0.050000' }),
      route('france-mobile', 10, { filters: { prefixes: ['336', '337'], accounts: ['other'] } }),
      route('uk', 30, { filters: { prefixes: ['44'] } }),
    ]);
    expect(table.decide(message)).toEqual({
      route: 'france',
      connectors: ['france-link'],
      price: '0.050000',
    });
    expect(table.decide({ ...message, accountUsername: 'other' })?.route).toBe('france-mobile');
    expect(table.decide({ ...message, to: '4479000000' })?.route).toBe('uk');
    expect(table.decide({ ...message, to: '4912345' })?.route).toBe('catch-all');
  });

  it('refuses a message that no route takes', () => {
    const table = new RouteTable([route('uk', 1, { filters: { prefixes: ['44'] } })]);
    expect(table.decide(message)).toBeUndefined();
  });

  it('matches pattern, sender and tags', () => {
    const table = new RouteTable([
      route('otp', 1, { filters: { tags: ['otp'], any_account: true } }),
      route('bank', 2, { filters: { senders: ['BANK'] } }),
      route('short', 3, { filters: { pattern: '33[0-9]{3}' } }),
    ]);
    expect(table.decide({ ...message, tags: ['x', 'otp'] })?.route).toBe('otp');
    expect(table.decide({ ...message, from: 'BANK' })?.route).toBe('bank');
    expect(table.decide({ ...message, to: '33123' })?.route).toBe('short');
    expect(table.decide(message)).toBeUndefined();
  });

  it('sets aside a stored route the admin API would refuse, and routes by the others', () => {
    const table = new RouteTable([
      route('open-tags', 1, { filters: { tags: ['cheap'] } }),
      route('backreference', 2, { filters: { pattern: '(3)\\1\\d+' } }),
      route('rest', 3),
    ]);
    expect(table.unusable.map((r) => r.name)).toEqual(['open-tags', 'backreference']);
    expect(table.decide({ ...message, tags: ['cheap'] })?.route).toBe('rest');
    expect(table.decide({ ...message, to: '3312345' })?.route).toBe('rest');
  });

  it('splits a weighted route by its weights, its others after the draw, and lists a failover route in order', () => {
    let draw = 0;
    const draws = [0.1, 0.5, 0.74, 0.76, 0.99];
    const table = new RouteTable(
      [
        route('split', 1, {
          kind: 'weighted',
          filters: { prefixes: ['33'] },
          targets: [
            { connector: 'a', weight: 3 },
            { connector: 'b', weight: 1 },
          ],
        }),
        route('chain', 2, {
          kind: 'failover',
          targets: [{ connector: 'x' }, { connector: 'y' }, { connector: 'z' }],
        }),
      ],
      () => draws[draw++],
    );
    expect(draws.map(() => table.decide(message)?.connectors[0])).toEqual([
      'a',
      'a',
      'a',
      'b',
      'b',
    ]);
    draw = 0;
    expect(table.decide(message)?.connectors).toEqual(['a', 'b']);
    draw = 3;
    expect(table.decide(message)?.connectors).toEqual(['b', 'a']);
    // The same object for every message of the same draw, so callers may group by identity.
    draw = 3;
    expect(table.decide(message)).toBe(table.decide({ ...message, to: '3399' }));
    expect(table.decide({ ...message, to: '1555' })?.connectors).toEqual(['x', 'y', 'z']);
  });
});

describe('inTimeWindow', () => {
  // 2026-11-24 is a Tuesday.
  const at = (iso: string) => new Date(iso);
  it('checks days and hours in the time zone', () => {
    const office = {
      days: ['mon' as const, 'tue' as const],
      from: '09:00',
      to: '18:00',
      time_zone: 'Europe/Paris',
    };
    expect(inTimeWindow(office, at('2026-11-24T08:30:00Z'))).toBe(true); // 09:30 in Paris
    expect(inTimeWindow(office, at('2026-11-24T07:30:00Z'))).toBe(false); // 08:30
    expect(inTimeWindow(office, at('2026-11-25T10:00:00Z'))).toBe(false); // Wednesday
  });
  it('spans midnight, counting the early hours to the day before', () => {
    const night = { days: ['tue' as const], from: '22:00', to: '06:00', time_zone: 'UTC' };
    expect(inTimeWindow(night, at('2026-11-24T23:00:00Z'))).toBe(true);
    expect(inTimeWindow(night, at('2026-11-25T05:00:00Z'))).toBe(true);
    expect(inTimeWindow(night, at('2026-11-24T05:00:00Z'))).toBe(false);
    expect(inTimeWindow(night, at('2026-11-24T12:00:00Z'))).toBe(false);
  });
});
