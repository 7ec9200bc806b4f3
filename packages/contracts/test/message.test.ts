import { SendRequestSchema } from '../src';

const send = (sdt: string) => SendRequestSchema.safeParse({ to: '41790000001', content: 'x', sdt });

describe('sdt (SMPP schedule_delivery_time)', () => {
  it.each(['260101120000000+', '260101120000004-', '000001000000000R', '261231235959948+'])(
    'accepts %s',
    (sdt) => {
      expect(send(sdt)).toMatchObject({ success: true, data: { sdt } });
    },
  );

  // Every character from '+' to 'R' other than '+', '-' and 'R': what a range [+-R] let through.
  const between = Array.from({ length: 'R'.charCodeAt(0) - '+'.charCodeAt(0) + 1 }, (_, i) =>
    String.fromCharCode('+'.charCodeAt(0) + i),
  ).filter((c) => !['+', '-', 'R'].includes(c));
  it('refuses every other last character', () => {
    const accepted = between.filter((c) => send(`260101120000000${c}`).success);
    expect(accepted).toEqual([]);
  });

  it.each(['26010112000000R', '2601011200000000R', '260101120000050R', 'a60101120000000R', ''])(
    'refuses %j',
    (sdt) => {
      const result = send(sdt);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(['sdt']);
    },
  );
});
