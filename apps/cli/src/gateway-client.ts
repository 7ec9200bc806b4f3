import { ErrorBodySchema } from '@smsgw/contracts';

/** A failed call, with the gateway's error code when it sent one. */
export class GatewayCallError extends Error {
  override name = 'GatewayCallError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** What the gateway listed of the refusal (a price list's bad lines, a batch's bad entries). */
    readonly errors: readonly string[] = [],
  ) {
    super(message);
  }
}

/** A body sent as it is, with its own content type (a CSV file), instead of as JSON. */
export interface RawBody {
  text: string;
  contentType: string;
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
    const response = await this.send(method, path, authorization, body, this.timeout());
    const text = await response.text();
    if (!response.ok) throw failure(response.status, text);
    return parse(text) as T;
  }

  /** A POST of a file as it is (a price list's CSV), answered with JSON. */
  async upload<T>(path: string, authorization: string, body: RawBody): Promise<T> {
    const response = await this.send('POST', path, authorization, body, this.timeout());
    const text = await response.text();
    if (!response.ok) throw failure(response.status, text);
    return parse(text) as T;
  }

  /** A GET answered with text (a CSV export), read whole. */
  async text(path: string, authorization: string): Promise<string> {
    const response = await this.send('GET', path, authorization, undefined, this.timeout());
    const text = await response.text();
    if (!response.ok) throw failure(response.status, text);
    return text;
  }

  /**
   * A GET whose answer is read as it comes (an export), with no time limit on the whole: the body,
   * once the gateway has answered a success; a failure is thrown with its detail as call's is.
   */
  async download(path: string, authorization: string): Promise<ReadableStream<Uint8Array>> {
    const response = await this.send('GET', path, authorization, undefined, undefined);
    if (!response.ok) throw failure(response.status, await response.text());
    if (response.body === null) throw failure(response.status, '');
    return response.body;
  }

  private timeout(): AbortSignal {
    return AbortSignal.timeout(this.options.timeoutMs ?? 30_000);
  }

  private async send(
    method: string,
    path: string,
    authorization: string,
    body: unknown,
    signal: AbortSignal | undefined,
  ): Promise<Response> {
    const url = new URL(path, this.options.baseUrl);
    const raw = isRaw(body) ? body : undefined;
    try {
      return await fetch(url, {
        method,
        headers: {
          authorization,
          ...(body !== undefined && { 'content-type': raw?.contentType ?? 'application/json' }),
        },
        ...(body !== undefined && { body: raw?.text ?? JSON.stringify(body) }),
        ...(signal !== undefined && { signal }),
      });
    } catch (err) {
      throw new GatewayCallError(
        0,
        'UNREACHABLE',
        `cannot reach ${url.origin}: ${(err as Error).message} (is it running? set ${this.options.urlVariable ?? 'SMSGW_URL'})`,
      );
    }
  }
}

function isRaw(body: unknown): body is RawBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as RawBody).text === 'string' &&
    typeof (body as RawBody).contentType === 'string'
  );
}

function parse(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The error of an answer that is not a success, with the gateway's detail when it sent one. */
function failure(status: number, text: string): GatewayCallError {
  const error = ErrorBodySchema.safeParse(parse(text));
  if (error.success)
    return new GatewayCallError(
      status,
      error.data.detail.code,
      error.data.detail.message,
      (error.data.detail.errors ?? []).map((e) => e.message),
    );
  return new GatewayCallError(status, 'HTTP_ERROR', `HTTP ${status}: ${text.slice(0, 200)}`);
}

export function basicAuth(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}
