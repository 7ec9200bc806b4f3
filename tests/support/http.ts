/** A small fetch wrapper for tests: status, parsed JSON (or text) and headers of one request. */
export interface Reply {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  auth?: string;
  json?: unknown;
  body?: string | FormData | URLSearchParams;
  headers?: Record<string, string>;
}

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export async function request(
  base: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth) headers['authorization'] = options.auth;
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text, headers: response.headers };
}

/**
 * The admin API of the gateway at `base()` with `auth` (a suite's gateway starts in its beforeAll,
 * hence the getter).
 */
export function adminCaller(
  base: () => string,
  auth: string,
): (method: string, path: string, json?: unknown) => Promise<Reply> {
  return (method, path, json) =>
    request(base(), method, `/admin/v1${path}`, { auth, ...(json !== undefined && { json }) });
}
