import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Embedded mode must work with no configuration, yet tokens must survive a restart: a secret not
 * given in the environment is generated once and kept in DATA_DIR, readable by the owner only.
 */
export function localSecret(
  dataDir: string,
  name: string,
  given: string | undefined,
): { value: string; generated: boolean } {
  if (given !== undefined) return { value: given, generated: false };
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, name);
  try {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored.length >= 32) return { value: stored, generated: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const value = randomBytes(32).toString('base64url');
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return { value, generated: true };
}
