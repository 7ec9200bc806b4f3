import { fillKannelTemplate, kannelUrlEncode } from '../src/kannel-template';

/**
 * Kannel's placeholders as gw/urltrans.c's urltrans_fill_escape_codes fills them, each value
 * encoded as gwlib/octstr.c's octstr_url_encode encodes it.
 */
const base = {
  text: 'Hello  wörld a*b &c',
  handset: '0041790000001',
  gateway: '4242',
  id: '0190a6b2-0000-7000-8000-000000000001',
  time: new Date('2026-11-27T01:02:03Z'),
};

it("encodes as octstr_url_encode: letters, digits and -_.!~*'() kept, a space as +, other octets %XX", () => {
  // octstr.c urlcode_init: safe = " 0123456789ABC…xyz-_.!~*'()"; "it's listed as safe here, but
  // is actually changed to '+'"; else '%' and two upper-case hexits.
  expect(kannelUrlEncode("a-b_c.d!e~f*g'h(i)j k/l&m=n%o")).toBe(
    "a-b_c.d!e~f*g'h(i)j+k%2Fl%26m%3Dn%25o",
  );
  expect(kannelUrlEncode('é')).toBe('%C3%A9');
});

it('fills the words, numbers and times as urltrans.c does', () => {
  const filled = fillKannelTemplate(
    '/x?a=%a&k=%k&s=%s&S=%S&r=%r&b=%b&p=%p&P=%P&q=%q&Q=%Q&t=%t&T=%T&I=%I&d=%d&c=%c&C=%C&m=%m&pct=%%&z=%z&end=%',
    { ...base, dlrEvent: 8, coding: 0 },
  );
  // case 'a': each word encoded, '+' between (octstr_split_words drops the empty ones).
  expect(filled).toContain('a=Hello+w%C3%B6rld+a*b+%26c&');
  expect(filled).toContain('k=Hello&');
  // case 's' takes the next word (nextarg from 1); case 'S' the one after, '*' as '~', not encoded.
  expect(filled).toContain('s=w%C3%B6rld&S=a~b&');
  // case 'r': the words from nextarg on.
  expect(filled).toContain('r=%26c&');
  expect(filled).toContain('b=Hello++w%C3%B6rld+a*b+%26c&');
  // case 'q': "if (strncmp(..., "00", 2) == 0) ... octstr_format_append(result, "%%2B%S", enc)".
  expect(filled).toContain('p=0041790000001&P=4242&q=%2B41790000001&Q=4242&');
  // case 't': "%04d-%02d-%02d+%02d:%02d:%02d" of gw_gmtime; case 'T': "%ld" seconds.
  expect(filled).toContain(`t=2026-11-27+01:02:03&T=${Date.UTC(2026, 10, 27, 1, 2, 3) / 1000}&`);
  expect(filled).toContain(`I=${base.id}&d=8&c=0&C=UTF-8&m=-1&`);
  // case '%': "%%"; default: "%%%c" (kept as written); a '%' last in the pattern is copied.
  expect(filled).toMatch(/pct=%&z=%z&end=%$/);
});

it('writes nothing for the values Kannel has none of here (%B %D %f %o %u), -1 for %M', () => {
  // urltrans.c: case 'B': if (octstr_len(request->sms.binfo)) ...; the same for 'D', 'f', 'o', 'u'.
  expect(fillKannelTemplate('b=%B&d=%D&f=%f&o=%o&u=%u&M=%M', base)).toBe('b=&d=&f=&o=&u=&M=-1');
  // A report's coding is Kannel's undefined; case 'C': "case DC_UNDEF: case DC_7BIT: UTF-8".
  expect(fillKannelTemplate('c=%c&C=%C', base)).toBe('c=-1&C=UTF-8');
});

it('a %s past the last word writes nothing and takes no word', () => {
  expect(fillKannelTemplate('%s|%s|%r', { ...base, text: 'one two' })).toBe('two||');
});
