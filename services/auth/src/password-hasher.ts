import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 32;

function derive(secret: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/**
 * scrypt from node:crypto: a slow, memory-hard KDF with no native addon to build.
 * The parameters are stored with each hash so they can be raised later without breaking old ones.
 */
export class PasswordHasher {
  private dummy: Promise<string> | undefined;

  constructor(private readonly cost: number = 1 << 15) {}

  /** Costs what a real check costs, for unknown users, so timing does not tell which names exist. */
  async verifyDummy(secret: string): Promise<void> {
    this.dummy ??= this.hash(randomBytes(16).toString('hex'));
    await this.verify(secret, await this.dummy);
  }

  async hash(secret: string): Promise<string> {
    const salt = randomBytes(16);
    const options = { N: this.cost, r: 8, p: 1, maxmem: 256 * this.cost * 8 };
    const key = await derive(secret, salt, options);
    return `scrypt$${options.N}$${options.r}$${options.p}$${salt.toString('base64')}$${key.toString('base64')}`;
  }

  /** Constant-time comparison; a malformed stored hash verifies as false, never throws. */
  async verify(secret: string, stored: string): Promise<boolean> {
    const [scheme, n, r, p, saltB64, keyB64] = stored.split('$');
    if (scheme !== 'scrypt' || !n || !r || !p || !saltB64 || !keyB64) return false;
    const N = Number(n);
    const expected = Buffer.from(keyB64, 'base64');
    const key = await derive(secret, Buffer.from(saltB64, 'base64'), {
      N,
      r: Number(r),
      p: Number(p),
      maxmem: 256 * N * Number(r),
    });
    return key.length === expected.length && timingSafeEqual(key, expected);
  }
}
