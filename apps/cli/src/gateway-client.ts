import { ErrorBodySchema } from '@smsgw/contracts';

/** A failed call, with the gateway's error code when it sent one. */
export class GatewayCallError extends Error {
  override name = 'GatewayCallError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  baseUrl: string;
  /** The variable that sets baseUrl, named when the gateway cannot be reached. */
  urlVariable?: string;
  timeoutMs?: number;
}

/** JSON over HTTP to the gateway; errors come back as GatewayCallError with the body's detail. */
export class GatewayClient {
  constructor(private readonly options: ClientOptions) {}

  async call<T>(method: string, path: string, authorization: string, body?: unknown): Promise<T> {
    let response: Response;
    const url = new URL(path, this.options.baseUrl);
    try {
      response = await fetch(url, {
        method,
        headers: {
          authorization,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new GatewayCallError(
        0,
        'UNREACHABLE',
        `cannot reach ${url.origin}: ${(err as Error).message} (is it running? set ${this.options.urlVariable ?? 'SMSGW_URL'})`,
      );
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const error = ErrorBodySchema.safeParse(parsed);
      if (error.success)
        throw new GatewayCallError(
          response.status,
          error.data.detail.code,
          error.data.detail.message,
        );
      throw new GatewayCallError(
        response.status,
        'HTTP_ERROR',
        `HTTP ${response.status}: ${text.slice(0, 200)}`,
      );
    }
    return parsed as T;
  }
}

export function basicAuth(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}
