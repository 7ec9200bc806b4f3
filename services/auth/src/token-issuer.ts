import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';

export interface TokenClaims {
  /** Account id. */
  sub: string;
  /** Client id of the application the token was issued to (revocation is per application). */
  cid: string;
  /** The account's credential version at issue (a disable or new password raises it). */
  ver: number;
  /** The application's secret version at issue (a rotation raises it). */
  sv: number;
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
    return jwt.sign({ cid: claims.cid, ver: claims.ver, sv: claims.sv }, this.secret, {
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
      // Tokens from before versions existed carry none: they were issued under version 0.
      const version = (claim: unknown) => (typeof claim === 'number' ? claim : 0);
      return {
        ok: true,
        claims: {
          sub: payload.sub,
          cid: payload['cid'],
          ver: version(payload['ver']),
          sv: version(payload['sv']),
        },
      };
    } catch (err) {
      return { ok: false, reason: err instanceof jwt.TokenExpiredError ? 'expired' : 'invalid' };
    }
  }
}
