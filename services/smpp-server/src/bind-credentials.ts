import {
  CLIENT_ADDRESS_HEADER,
  ERROR_STATUS,
  ErrorBodySchema,
  SmppAccountSchema,
  type ErrorCode,
  type SmppAccount,
} from '@smsgw/contracts';
import { HttpError } from '@smsgw/kit';

/**
 * Checks a bind's system_id and password (and the address it comes from) and answers the account
 * with its SMPP limits; refusals are HttpErrors as auth gives them.
 */
export interface BindCredentials {
  check(systemId: string, password: string, address: string | undefined): Promise<SmppAccount>;
}

/** Auth's internal check over HTTP (distributed mode), behind auth's login limits. */
export class HttpBindCredentials implements BindCredentials {
  constructor(
    private readonly authUrl: string,
    private readonly internalToken: string,
    private readonly timeoutMs = 5_000,
  ) {}

  async check(
    systemId: string,
    password: string,
    address: string | undefined,
  ): Promise<SmppAccount> {
    const basic = Buffer.from(`${systemId}:${password}`, 'utf8').toString('base64');
    const headers: Record<string, string> = {
      authorization: `Basic ${basic}`,
      'x-internal-token': this.internalToken,
    };
    if (address !== undefined) headers[CLIENT_ADDRESS_HEADER] = address;
    let response: Response;
    try {
      response = await fetch(new URL('/internal/v1/smpp-bind', this.authUrl), {
        method: 'POST',
        headers,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch {
      throw new HttpError('SERVICE_UNAVAILABLE', 'Authentication service unavailable');
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (response.ok) return SmppAccountSchema.parse(body);
    const error = ErrorBodySchema.safeParse(body);
    if (
      !response.headers.has('x-internal-token-refused') &&
      error.success &&
      error.data.detail.code in ERROR_STATUS
    )
      throw new HttpError(error.data.detail.code as ErrorCode, error.data.detail.message);
    throw new HttpError('SERVICE_UNAVAILABLE', 'Authentication service unavailable');
  }
}
