import { createHmac } from 'node:crypto';
import { boundedCache } from '@smsgw/kit';
import type { LoginProtocol } from './login-throttle';

/** How long a verified credential is exempt from the login limits after its last success. */
export const VERIFIED_FOR_MS = 24 * 3600_000;

/** Where a credential was verified recently: at all, and from the client's address. */
export interface Recall {
  anywhere: boolean;
  here: boolean;
}

/** Flags that expire, by id: the memory of one process, or Redis shared by every replica. */
export interface FlagStore {
  has(ids: readonly string[]): Promise<boolean[]>;
  set(ids: readonly string[], ttlMs: number): Promise<void>;
  delete(ids: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** One process's flags (embedded mode, and a fallback while Redis does not answer). */
export class MemoryFlags implements FlagStore {
  private readonly flags = boundedCache<string, true>(100_000, VERIFIED_FOR_MS);

  has(ids: readonly string[]): Promise<boolean[]> {
    return Promise.resolve(ids.map((id) => this.flags.has(id)));
  }

  set(ids: readonly string[], ttlMs: number): Promise<void> {
    for (const id of ids) this.flags.set(id, true, { ttl: ttlMs });
    return Promise.resolve();
  }

  delete(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.flags.delete(id);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The credentials that verified recently, overall and per client address: what exempts a
 * customer from the login limits that others' failures fill. Only a keyed hash of name and
 * secret is kept, so what is stored (in Redis too) cannot be tested against guesses without the
 * key.
 */
export class VerifiedCredentials {
  private readonly key: Buffer;

  /** `secret` is a server secret (auth derives it from JWT_SECRET), never a customer's. */
  constructor(
    private readonly flags: FlagStore,
    secret: string,
  ) {
    this.key = createHmac('sha256', secret).update('smsgw verified credentials').digest();
  }

  private ids(
    protocol: LoginProtocol,
    name: string,
    secret: string,
    where: string | undefined,
  ): string[] {
    const id = (parts: readonly string[]) =>
      createHmac('sha256', this.key).update(JSON.stringify(parts)).digest('base64url');
    // A bind proves the SMPP password, a login the HTTP one: neither exempts (or, failing,
    // unexempts) the other. HTTP's ids are those it had before binds were told apart.
    const credential = protocol === 'http' ? [name, secret] : [protocol, name, secret];
    const anywhere = id(credential);
    return where === undefined ? [anywhere] : [anywhere, id([...credential, where])];
  }

  /** `where` is the client's address key (addressKey), when known. */
  async recall(
    protocol: LoginProtocol,
    name: string,
    secret: string,
    where: string | undefined,
  ): Promise<Recall> {
    const [anywhere, here] = await this.flags.has(this.ids(protocol, name, secret, where));
    // Forgetting the credential overall ends its exemption at every address.
    return { anywhere, here: anywhere && (here ?? true) };
  }

  remember(
    protocol: LoginProtocol,
    name: string,
    secret: string,
    where: string | undefined,
  ): Promise<void> {
    return this.flags.set(this.ids(protocol, name, secret, where), VERIFIED_FOR_MS);
  }

  /** After the credential failed (a new password, a rotated secret): it is exempt no more. */
  forget(
    protocol: LoginProtocol,
    name: string,
    secret: string,
    where: string | undefined,
  ): Promise<void> {
    return this.flags.delete(this.ids(protocol, name, secret, where));
  }

  close(): Promise<void> {
    return this.flags.close();
  }
}
