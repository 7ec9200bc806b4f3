import { SecretBox } from '../src/secret-box';

const KEY = 'secret-box-test-key-0123456789-abcdef';
/** 'Op3rator-Pw!' sealed under KEY the old way (v1, no associated data), before places. */
const SEALED_V1 = 'v1:N_C_X6agliKSD08DAXYRr6hi0h1VwgBy6dqB6c2VTEiy5npVo4W2iQ';

const box = new SecretBox(KEY);
const placeA = JSON.stringify(['connectors', 'op-a', 'password_sealed', 'smpp://opa@a:2775']);
const placeB = JSON.stringify(['connectors', 'op-b', 'password_sealed', 'smpp://opa@a:2775']);

describe('SecretBox', () => {
  it('opens a value only in the place it was sealed for', () => {
    const sealed = box.seal('Op3rator-Pw!', placeA);
    expect(box.open(sealed, placeA)).toBe('Op3rator-Pw!');
    // Copied into another row, or another field of the same row: it does not open.
    expect(() => box.open(sealed, placeB)).toThrow(/does not open/);
    expect(() => box.open(sealed, placeA.replace('password_sealed', 'other_sealed'))).toThrow(
      /does not open/,
    );
    expect(() => new SecretBox(`${KEY}x`).open(sealed, placeA)).toThrow(/does not open/);
  });

  it('refuses a value whose tag was cut short', () => {
    // GCM checks a shorter tag against the start of the right one: cut to 4 bytes, a tag is
    // found by 2^32 tries, so a value whose tag is not 16 bytes is refused unchecked.
    const sealed = box.seal('', placeA);
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    expect(raw).toHaveLength(12 + 16);
    for (const tagBytes of [4, 8, 12, 15]) {
      const cut = sealed.slice(0, 3) + raw.subarray(0, 12 + tagBytes).toString('base64url');
      expect(() => box.open(cut, placeA)).toThrow();
    }
    expect(box.open(sealed, placeA)).toBe('');
  });

  it('reads a value sealed the old way, wherever it is, and tells it is to be sealed again', () => {
    expect(SecretBox.isSealed(SEALED_V1)).toBe(true);
    expect(SecretBox.needsResealing(SEALED_V1)).toBe(true);
    expect(box.open(SEALED_V1, placeA)).toBe('Op3rator-Pw!');
    const sealed = box.seal('Op3rator-Pw!', placeA);
    expect(sealed.startsWith('v2:')).toBe(true);
    expect(SecretBox.needsResealing(sealed)).toBe(false);
    // An old value altered still fails to open.
    const altered = SEALED_V1.slice(0, -2) + (SEALED_V1.endsWith('AA') ? 'AB' : 'AA');
    expect(() => box.open(altered, placeA)).toThrow(/does not open/);
  });
});
