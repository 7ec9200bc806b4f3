/**
 * The gateway's public HTTP API as the console calls it: same origin, the session's cookie (sent by
 * the browser, never read here) and, on every request that changes something, the session's CSRF
 * token. Answers and bodies are typed by the contracts package's schemas.
 */

let csrfToken: string | undefined;

/** The session's CSRF token, set at login and when the session is read. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** An API answer that is not a success: its status and the gateway's error message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function messageOf(body: unknown, status: number): string {
  const detail = (body as { detail?: { message?: unknown } } | undefined)?.detail;
  if (typeof detail?.message === 'string') return detail.message;
  return `The gateway answered ${status}`;
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken !== undefined) headers['x-csrf-token'] = csrfToken;
  const reply = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await reply.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (!reply.ok) throw new ApiError(reply.status, messageOf(parsed, reply.status));
  return parsed as T;
}

/** A query string of the values that are set. */
export function query(params: Record<string, string | undefined>): string {
  const set = Object.entries(params).filter((e): e is [string, string] => !!e[1]);
  return set.length === 0 ? '' : `?${new URLSearchParams(set).toString()}`;
}
