import {
  ASCII,
  BINARY,
  BINARY_8BIT,
  EncodingError,
  GSM7,
  GSM7_BASIC,
  GSM7_EXTENSION,
  LATIN1,
  UCS2,
  chooseCoding,
  decodeText,
  encodeText,
  fitsGsm7,
  planMessage,
  splitMessage,
  stripUdh,
  withMessageClass,
} from '../src/encoding';

const plan = (content: string, coding?: number) => planMessage({ content, coding }, 255);
const split = (content: string, coding?: number) =>
  splitMessage({ content, coding }, { maxParts: 255, ref: 0x2a });
const bodies = (m: { parts: Buffer[]; esmClass: number }) =>
  m.parts.map((p) => stripUdh(p, m.esmClass).body);

describe('GSM 03.38', () => {
  it('has 128 entries and the well-known positions', () => {
    expect([...GSM7_BASIC]).toHaveLength(128);
    expect(encodeText('@$_', GSM7)).toEqual(Buffer.from([0x00, 0x02, 0x11]));
    expect(encodeText('Hello @ £ €', GSM7)).toEqual(
      Buffer.from([0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x20, 0x00, 0x20, 0x01, 0x20, 0x1b, 0x65]),
    );
    const known: [string, number][] = [
      ['@', 0x00],
      ['£', 0x01],
      ['$', 0x02],
      ['¥', 0x03],
      ['è', 0x04],
      ['é', 0x05],
      ['ù', 0x06],
      ['ì', 0x07],
      ['ò', 0x08],
      ['Ç', 0x09],
      ['\n', 0x0a],
      ['Ø', 0x0b],
      ['ø', 0x0c],
      ['\r', 0x0d],
      ['Å', 0x0e],
      ['å', 0x0f],
      ['Δ', 0x10],
      ['_', 0x11],
      ['Φ', 0x12],
      ['Γ', 0x13],
      ['Λ', 0x14],
      ['Ω', 0x15],
      ['Π', 0x16],
      ['Ψ', 0x17],
      ['Σ', 0x18],
      ['Θ', 0x19],
      ['Ξ', 0x1a],
      ['Æ', 0x1c],
      ['æ', 0x1d],
      ['ß', 0x1e],
      ['É', 0x1f],
      [' ', 0x20],
      ['¤', 0x24],
      ['0', 0x30],
      ['?', 0x3f],
      ['¡', 0x40],
      ['A', 0x41],
      ['Z', 0x5a],
      ['Ä', 0x5b],
      ['Ö', 0x5c],
      ['Ñ', 0x5d],
      ['Ü', 0x5e],
      ['§', 0x5f],
      ['¿', 0x60],
      ['a', 0x61],
      ['z', 0x7a],
      ['ä', 0x7b],
      ['ö', 0x7c],
      ['ñ', 0x7d],
      ['ü', 0x7e],
      ['à', 0x7f],
    ];
    for (const [char, septet] of known)
      expect([char, [...encodeText(char, GSM7)]]).toEqual([char, [septet]]);
  });

  it('encodes every basic character to its own septet and back', () => {
    for (let i = 0; i < 128; i++) {
      if (i === 0x1b) continue;
      const char = GSM7_BASIC[i];
      expect(encodeText(char, GSM7)).toEqual(Buffer.from([i]));
      expect(decodeText(Buffer.from([i]), GSM7)).toBe(char);
    }
  });

  it('escapes the extension table with 0x1B', () => {
    expect(Object.keys(GSM7_EXTENSION).sort()).toEqual(
      ['\f', '[', '\\', ']', '^', '{', '|', '}', '~', '€'].sort(),
    );
    expect([...encodeText('\f^{}\\[~]|€', GSM7)]).toEqual(
      [0x0a, 0x14, 0x28, 0x29, 0x2f, 0x3c, 0x3d, 0x3e, 0x40, 0x65].flatMap((v) => [0x1b, v]),
    );
    expect(decodeText(Buffer.from([0x1b, 0x65, 0x41, 0x1b, 0x41]), GSM7)).toBe('€AA');
  });

  it('chooses GSM 03.38 when every character fits, else UCS-2', () => {
    expect(chooseCoding('Hello [world] {~} € ΔΩ ñ ß')).toBe(GSM7);
    expect(chooseCoding('Привет')).toBe(UCS2);
    expect(chooseCoding('hi 👋')).toBe(UCS2);
    expect(chooseCoding('ç')).toBe(UCS2); // only the capital Ç is in the table
    expect(chooseCoding('esc \u001b')).toBe(UCS2); // 0x1B is the escape, not a character
    expect(fitsGsm7('`')).toBe(false);
    expect(chooseCoding('plain', UCS2)).toBe(UCS2);
    expect(chooseCoding('café', LATIN1)).toBe(LATIN1);
  });

  it('refuses content the asked coding cannot carry, naming the character', () => {
    expect(() => plan('你好', GSM7)).toThrow(EncodingError);
    expect(() => plan('你好', LATIN1)).toThrow(EncodingError);
    expect(() => plan('a你好', LATIN1)).toThrow(/"你" \(U\+4F60\) at position 2 .*data_coding 3/);
    expect(() => encodeText('price: 5€', LATIN1)).toThrow(
      'character "€" (U+20AC) at position 9 cannot be encoded in data_coding 3 (Latin-1)',
    );
    expect(() => encodeText('👋x`', GSM7)).toThrow(/"👋" \(U\+1F44B\) at position 1/);
    expect(() => encodeText('ab`', GSM7)).toThrow(
      /"`" \(U\+0060\) at position 3 cannot be encoded in data_coding 0 \(GSM 03.38\)/,
    );
    expect(() => plan('é', ASCII)).toThrow(EncodingError);
    expect(() => plan('text', BINARY)).toThrow(/data_coding 4 .*hex_content/);
    expect(() => plan('text', 2)).toThrow(EncodingError);
    expect(() => plan('text', 99)).toThrow(EncodingError);
    expect(() => plan('bad \ud83d pair', UCS2)).toThrow(/surrogate/);
    expect(() => plan('bad \ud83d pair')).toThrow(EncodingError);
    expect(() => planMessage({}, 10)).toThrow(/content or hex_content is required/);
    expect(plan('é', LATIN1)).toEqual({ coding: LATIN1, segments: 1 });
  });

  it('round-trips every text coding', () => {
    const samples: [string, number][] = [
      ['Grüße @ € {x} ΔΦΓΛΩΠΨΣΘΞ\n\r§¿¡', GSM7],
      ['plain ascii ~ `{}|', ASCII],
      ['Café ÿ ¤ ©', LATIN1],
      ['Привет 👋 你好 @', UCS2],
    ];
    for (const [text, coding] of samples)
      expect(decodeText(encodeText(text, coding), coding)).toBe(text);
    expect(encodeText('a👋', UCS2)).toEqual(Buffer.from([0x00, 0x61, 0xd8, 0x3d, 0xdc, 0x4b]));
    expect(encodeText('ÿ', LATIN1)).toEqual(Buffer.from([0xff]));
  });

  it('decodes odd bytes on a best-effort basis', () => {
    expect(decodeText(Buffer.from([0x00, 0x41, 0x00]), UCS2)).toBe('A\ufffd');
    expect(decodeText(Buffer.from([0xe9, 0x41]), BINARY)).toBe('éA');
    expect(decodeText(Buffer.from([0x41, 0x1b]), GSM7)).toBe('A\u001b');
  });
});

describe('segments', () => {
  it.each([
    ['160 GSM', 'x'.repeat(160), undefined, 1],
    ['161 GSM', 'x'.repeat(161), undefined, 2],
    ['306 GSM', 'x'.repeat(306), undefined, 2],
    ['307 GSM', 'x'.repeat(307), undefined, 3],
    ['80 escapes = 160 septets', '€'.repeat(80), undefined, 1],
    ['81 escapes = 162 septets', '€'.repeat(81), undefined, 2],
    ['158 + escape = 160', `${'x'.repeat(158)}€`, undefined, 1],
    ['159 + escape = 161', `${'x'.repeat(159)}€`, undefined, 2],
    ['70 UCS-2', 'я'.repeat(70), undefined, 1],
    ['71 UCS-2', 'я'.repeat(71), undefined, 2],
    ['134 UCS-2', 'я'.repeat(134), undefined, 2],
    ['135 UCS-2', 'я'.repeat(135), undefined, 3],
    ['35 emoji = 70 units', '👋'.repeat(35), undefined, 1],
    ['70 ASCII as UCS-2', 'x'.repeat(70), UCS2, 1],
    ['71 ASCII as UCS-2', 'x'.repeat(71), UCS2, 2],
    ['140 Latin-1', 'é'.repeat(140), LATIN1, 1],
    ['141 Latin-1', 'é'.repeat(141), LATIN1, 2],
    ['268 ASCII', 'x'.repeat(268), ASCII, 2],
    ['269 ASCII', 'x'.repeat(269), ASCII, 3],
  ])('%s', (_name, text, coding, parts) => {
    expect(plan(text, coding).segments).toBe(parts);
    const message = split(text, coding);
    expect(message.parts).toHaveLength(parts);
    expect(message.esmClass).toBe(parts > 1 ? 0x40 : 0);
    // Unpacked septets: 160 octets on the SMPP link, 140 once the SMSC packs them.
    const limit = message.dataCoding === GSM7 ? 160 : 140;
    for (const part of message.parts) expect(part.length).toBeLessThanOrEqual(limit);
    expect(decodeText(Buffer.concat(bodies(message)), message.dataCoding)).toBe(text);
  });

  it('puts the UDH 05 00 03 ref total seq on every part, with esm_class 0x40', () => {
    const message = split('a'.repeat(400));
    expect(message.esmClass).toBe(0x40);
    expect(message.parts.map((p) => [...p.subarray(0, 6)])).toEqual(
      [1, 2, 3].map((seq) => [5, 0, 3, 0x2a, 3, seq]),
    );
    expect(message.parts.map((p) => p.length - 6)).toEqual([153, 153, 94]);
    const ucs2 = split('я'.repeat(140));
    expect(ucs2.parts.map((p) => [...p.subarray(0, 6)])).toEqual(
      [1, 2, 3].map((seq) => [5, 0, 3, 0x2a, 3, seq]),
    );
    expect(ucs2.parts.map((p) => p.length - 6)).toEqual([134, 134, 12]);
    expect(split('short').esmClass).toBe(0);
    expect(split('short').parts).toEqual([Buffer.from('short')]);
  });

  it('draws a random reference, the same on every part of one message', () => {
    const refs = new Set<number>();
    for (let i = 0; i < 40; i++) {
      const message = splitMessage({ content: 'b'.repeat(500) }, { maxParts: 10 });
      const partRefs = message.parts.map((p) => p[3]);
      expect(new Set(partRefs).size).toBe(1);
      expect(partRefs[0]).toBeGreaterThanOrEqual(0);
      expect(partRefs[0]).toBeLessThanOrEqual(255);
      expect(message.parts.map((p) => p[4])).toEqual([4, 4, 4, 4]);
      refs.add(partRefs[0]);
    }
    expect(refs.size).toBeGreaterThan(1);
    expect(
      splitMessage({ content: 'c'.repeat(200) }, { maxParts: 2, ref: 0x1ff }).parts[1][3],
    ).toBe(0xff);
  });

  it('never splits an escape sequence', () => {
    const message = split(`${'x'.repeat(152)}€${'y'.repeat(10)}`);
    const [first, second] = bodies(message);
    expect(first).toHaveLength(152);
    expect([...second.subarray(0, 2)]).toEqual([0x1b, 0x65]);
    expect(message.parts).toHaveLength(2);
    // The escape ending exactly on the boundary stays in the first part.
    expect(bodies(split(`${'x'.repeat(151)}€${'y'.repeat(10)}`))[0]).toHaveLength(153);
  });

  it('never splits a surrogate pair', () => {
    const text = `${'я'.repeat(66)}👋${'я'.repeat(10)}`;
    const parts = bodies(split(text));
    expect(parts[0]).toHaveLength(132);
    expect(parts.map((b) => decodeText(b, UCS2)).join('')).toBe(text);
    expect(bodies(split(`${'я'.repeat(65)}👋${'я'.repeat(10)}`))[0]).toHaveLength(134);
  });

  it('passes hex_content through byte for byte with its coding', () => {
    const message = splitMessage(
      { hexContent: '00480069d83ddc4b', coding: UCS2 },
      { maxParts: 10 },
    );
    expect(message).toEqual({
      dataCoding: UCS2,
      parts: [Buffer.from('00480069d83ddc4b', 'hex')],
      esmClass: 0,
    });
    expect(planMessage({ hexContent: 'ff'.repeat(140), coding: BINARY }, 10)).toEqual({
      coding: BINARY,
      segments: 1,
    });
    expect(planMessage({ hexContent: 'ff'.repeat(141), coding: BINARY }, 10).segments).toBe(2);
    expect(planMessage({ hexContent: 'ff'.repeat(268), coding: 2 }, 10).segments).toBe(2);
    expect(planMessage({ hexContent: 'ff'.repeat(269), coding: 2 }, 10).segments).toBe(3);
    const binary = splitMessage(
      { hexContent: 'ab'.repeat(141), coding: BINARY },
      { maxParts: 10, ref: 7 },
    );
    expect(binary.parts.map((p) => p.length)).toEqual([140, 13]);
    expect(Buffer.concat(bodies(binary))).toEqual(Buffer.from('ab'.repeat(141), 'hex'));
    expect(() => planMessage({ hexContent: 'ff', coding: GSM7 }, 10)).toThrow(/septet/);
    expect(() => planMessage({ hexContent: '80', coding: ASCII }, 10)).toThrow(/coding 4/);
    expect(() => planMessage({ hexContent: '00', coding: UCS2 }, 10)).toThrow(/code units/);
    expect(() => planMessage({ hexContent: 'abc', coding: BINARY }, 10)).toThrow(/hexadecimal/);
    expect(() => planMessage({ hexContent: 'zz', coding: BINARY }, 10)).toThrow(EncodingError);
    expect(() => planMessage({ hexContent: '00', coding: 11 }, 10)).toThrow(
      /unknown data_coding 11/,
    );
  });

  it('takes hex_content without a coding as GSM 03.38 septets, one per octet', () => {
    expect(planMessage({ hexContent: '41'.repeat(160) }, 10)).toEqual({
      coding: GSM7,
      segments: 1,
    });
    expect(planMessage({ hexContent: '41'.repeat(161) }, 10)).toEqual({
      coding: GSM7,
      segments: 2,
    });
    expect(planMessage({ hexContent: '41'.repeat(306), coding: GSM7 }, 10).segments).toBe(2);
    expect(planMessage({ hexContent: '41'.repeat(307), coding: GSM7 }, 10).segments).toBe(3);
    const escaped = splitMessage(
      { hexContent: `${'41'.repeat(152)}1b65${'42'.repeat(10)}` },
      { maxParts: 10, ref: 1 },
    );
    expect(bodies(escaped).map((b) => b.length)).toEqual([152, 12]);
    expect(decodeText(Buffer.concat(bodies(escaped)), GSM7)).toBe(
      `${'A'.repeat(152)}€${'B'.repeat(10)}`,
    );
    const pair = splitMessage(
      { hexContent: `${'0041'.repeat(66)}d83ddc4b${'0042'.repeat(5)}`, coding: UCS2 },
      { maxParts: 10, ref: 1 },
    );
    expect(bodies(pair).map((b) => b.length)).toEqual([132, 14]);
  });

  it('refuses more parts than allowed', () => {
    expect(() => planMessage({ content: 'x'.repeat(153 * 3 + 1) }, 3)).toThrow(
      /needs 4 parts; at most 3/,
    );
    expect(() => splitMessage({ content: 'x'.repeat(153 * 3 + 1) }, { maxParts: 3 })).toThrow(
      EncodingError,
    );
    expect(() => planMessage({ content: 'я'.repeat(67 * 10 + 1) }, 10)).toThrow(
      'message needs 11 parts; at most 10 are allowed',
    );
    expect(planMessage({ content: 'x'.repeat(153 * 3) }, 3).segments).toBe(3);
    // total and seq are single octets.
    expect(() => planMessage({ content: 'x'.repeat(153 * 255 + 1) }, 1000)).toThrow(
      /needs 256 parts; at most 255/,
    );
  });

  it('counts exactly what it sends, for random texts', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const gsm = ['a', ' ', '€', '[', 'é', '@', '\n', 'Ω', '^', '\f'];
    const other = ['Ж', '👋', '你', '😀'];
    for (let i = 0; i < 400; i++) {
      const length = 1 + Math.floor(random() * 420);
      const useUnicode = random() < 0.4;
      const alphabet = useUnicode ? [...gsm, ...other] : gsm;
      let text = '';
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(random() * alphabet.length)];
      const coding = !useUnicode && random() < 0.2 ? UCS2 : undefined;
      const planned = plan(text, coding);
      const sent = split(text, coding);
      expect([sent.dataCoding, sent.parts.length]).toEqual([planned.coding, planned.segments]);
      expect(sent.dataCoding).toBe(coding ?? (fitsGsm7(text) ? GSM7 : UCS2));
      expect(sent.esmClass).toBe(sent.parts.length > 1 ? 0x40 : 0);
      const parts = bodies(sent);
      for (const body of parts) {
        expect(body.length).toBeLessThanOrEqual(
          sent.parts.length > 1 ? (sent.dataCoding === GSM7 ? 153 : 134) : 160,
        );
        if (sent.dataCoding === GSM7) expect(body[body.length - 1]).not.toBe(0x1b);
        else expect(body[body.length - 2] >= 0xd8 && body[body.length - 2] <= 0xdb).toBe(false);
      }
      expect(parts.map((b) => decodeText(b, sent.dataCoding)).join('')).toBe(text);
    }
  });
});

describe('withMessageClass', () => {
  // Kannel's fields_to_dcs (gw/sms.c): `dcs |= (0x10 | msg->sms.mclass)` and
  // `dcs |= (msg->sms.coding << 2)`, DC_7BIT 0, DC_8BIT 1, DC_UCS2 2.
  it("writes the class into data_coding as Kannel's fields_to_dcs does", () => {
    for (const cls of [0, 1, 2, 3]) {
      expect(withMessageClass(GSM7, cls)).toBe(0x10 | cls);
      expect(withMessageClass(BINARY_8BIT, cls)).toBe(0x14 | cls);
      expect(withMessageClass(BINARY, cls)).toBe(0x14 | cls);
      expect(withMessageClass(UCS2, cls)).toBe(0x18 | cls);
    }
  });

  it('has no form for the codings without a class, nor for a class above 3', () => {
    for (const coding of [ASCII, LATIN1, 5, 6, 7, 9, 10, 13, 14])
      expect(withMessageClass(coding, 0)).toBeUndefined();
    expect(withMessageClass(GSM7, 4)).toBeUndefined();
    expect(withMessageClass(GSM7, -1)).toBeUndefined();
  });
});
