import { randomBytes } from 'node:crypto';
import type { PasswordHasher } from './password-hasher';

/** A new application's client id (96 random bits), its secret (256) and the secret's hash. */
export async function newApplicationCredentials(
  hasher: PasswordHasher,
): Promise<{ clientId: string; clientSecret: string; secretHash: string }> {
  const clientId = randomBytes(12).toString('hex');
  const clientSecret = randomBytes(32).toString('base64url');
  return { clientId, clientSecret, secretHash: await hasher.hash(clientSecret) };
}
