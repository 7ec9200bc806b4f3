import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';

export interface TokenClaims {
  /** Account id. */
  sub: string;
  /** Client id of the application the token was issued to (revocation is per application). */
  cid: string;
}

export type TokenCheck =
  { ok: true; claims: TokenClaims } | { ok: false; reason: 'expired' | 'invalid' };

/** HS256 access tokens; verification pins the algorithm so `alg: none` or RS/HS confusion is refused. */
export class TokenIssuer {
  private static readonly ALGORITHM = 'HS256' as const;

  constructor(
    private readonly secret: string,
    readonly ttlSeconds: number,
  ) {}

  issue(claims: TokenClaims): string {
    return jwt.sign({ cid: claims.cid }, this.secret, {
      algorithm: TokenIssuer.ALGORITHM,
      subject: claims.sub,
      expiresIn: this.ttlSeconds,
      jwtid: randomUUID(),
      issuer: 'sms-gateway',
    });
  }

  check(token: string): TokenCheck {
    try {
      const payload = jwt.verify(token, this.secret, {
        algorithms: [TokenIssuer.ALGORITHM],
        issuer: 'sms-gateway',
      });
      if (
        typeof payload !== 'object' ||
        typeof payload.sub !== 'string' ||
        typeof payload['cid'] !== 'string'
      ) {
        return { ok: false, reason: 'invalid' };
      }
      return { ok: true, claims: { sub: payload.sub, cid: payload['cid'] } };
    } catch (err) {
      return { ok: false, reason: err instanceof jwt.TokenExpiredError ? 'expired' : 'invalid' };
    }
  }
}
