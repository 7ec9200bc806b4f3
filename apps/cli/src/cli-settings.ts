import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the CLI finds the gateway and the admin token; embedded mode keeps the token in DATA_DIR. */
export function gatewayUrl(env: NodeJS.ProcessEnv): string {
  return env['SMSGW_URL'] ?? 'http://127.0.0.1:8080';
}

/**
 * The admin API (accounts, apps). Embedded mode serves it on the gateway's port; in distributed
 * mode it is the auth service's (8081), while send and batch go to the api-gateway (8080).
 */
export function adminUrl(env: NodeJS.ProcessEnv): string {
  return env['SMSGW_ADMIN_URL'] ?? gatewayUrl(env);
}

export function adminToken(env: NodeJS.ProcessEnv): string {
  const given = env['SMSGW_ADMIN_TOKEN'] ?? env['ADMIN_TOKEN'];
  if (given) return given;
  const file = join(env['DATA_DIR'] ?? '.data', 'admin-token');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new Error(
      `no admin token: set SMSGW_ADMIN_TOKEN, or run from the directory whose ${file} embedded mode wrote`,
    );
  }
}
