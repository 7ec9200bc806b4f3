/** Query parameters that may carry a secret in an HTTP connector's URL. */
const SECRET_PARAMS = /^(password|pass|pwd|secret|token|api_key|apikey)$/i;

/**
 * A connector's URL as the admin API shows it: the password (and any secret-looking parameter)
 * replaced by `***`, so a secret never leaves the database through the API or a log line.
 */
export function maskConnectorUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '***';
  }
  if (parsed.password) parsed.password = '***';
  for (const key of [...parsed.searchParams.keys()])
    if (SECRET_PARAMS.test(key)) parsed.searchParams.set(key, '***');
  return parsed.toString().replace(/%2A%2A%2A/g, '***');
}
