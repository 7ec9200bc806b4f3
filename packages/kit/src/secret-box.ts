import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * What a sealed value starts with: its format, so another can follow without guessing. v2 values
 * are bound to their place (associated data); v1 values, sealed before places, are still read.
 */
const PREFIX = 'v2:';
const LEGACY_PREFIX = 'v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals secrets the gateway must be able to read back (an SMSC's password), with AES-256-GCM under
 * a key derived from CONNECTOR_SECRET_KEY: a copy of the database alone does not give them away,
 * and a sealed value altered in the database fails to open instead of being used. Each value is
 * sealed for its place (the row, the column and whatever else the caller binds it to), so one
 * copied to another place fails to open too.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, '', 'smsgw connector passwords', 32));
  }

  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX) || value.startsWith(LEGACY_PREFIX);
  }

  /** True for a value sealed the old way, without its place: to be sealed again. */
  static needsResealing(value: string): boolean {
    return value.startsWith(LEGACY_PREFIX);
  }

  /** `place` names where the value is stored; open must be given the same. */
  seal(plain: string, place: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(place, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** Throws when the value was sealed under another key, for another place, or altered. */
  open(sealed: string, place: string): string {
    const legacy = SecretBox.needsResealing(sealed);
    if (!SecretBox.isSealed(sealed)) throw new Error('not a sealed value');
    const raw = Buffer.from(sealed.slice((legacy ? LEGACY_PREFIX : PREFIX).length), 'base64url');
    const refused = new Error(
      'a sealed secret does not open with CONNECTOR_SECRET_KEY (another key, another place, or altered)',
    );
    // GCM accepts a shorter tag, checked against the start of the right one: a tag cut short
    // would be found by far fewer tries. Only the full 16 bytes are taken.
    if (raw.length < IV_BYTES + TAG_BYTES) throw refused;
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    if (!legacy) decipher.setAAD(Buffer.from(place, 'utf8'));
    try {
      return Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw refused;
    }
  }
}
