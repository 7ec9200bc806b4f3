import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The Postgres the tests use when DATABASE_URL is unset (trust auth on a developer machine). */
export const LOCAL_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

let probed: { url: string; required: boolean } | undefined | null = null;

/**
 * Which Postgres server the tests should use, decided synchronously so a test file can choose
 * between `describe` and `describe.skip`:
 * - DATABASE_URL set (CI): that server, `required` (tests must fail, not skip, if it is down);
 * - else the local default when it accepts a connection now, not required;
 * - else undefined (skip, with a warning).
 */
export function findTestDatabaseServer(): { url: string; required: boolean } | undefined {
  if (probed !== null) return probed;
  const configured = process.env['DATABASE_URL'];
  if (configured !== undefined && configured !== '') {
    probed = { url: configured, required: true };
  } else {
    // jest's describe() is synchronous: probe in a child process.
    const script = `const pg = require(${JSON.stringify(require.resolve('pg'))});
      const c = new pg.Client({ connectionString: process.argv[1], connectionTimeoutMillis: 2000 });
      c.connect().then(() => c.end()).then(() => process.exit(0), () => process.exit(1));`;
    const child = spawnSync(process.execPath, ['-e', script, LOCAL_DATABASE_URL], {
      timeout: 5000,
      stdio: 'ignore',
    });
    probed = child.status === 0 ? { url: LOCAL_DATABASE_URL, required: false } : undefined;
  }
  return probed;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

async function withClient<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, empty database `smsgw_test_<random>` on the server DATABASE_URL names (or the local
 * default), so tests never see each other's rows. Its URL is the server URL with the database
 * name replaced (user, password, host and query parameters kept). drop() ends its connections and
 * removes it; calling it twice is harmless.
 */
export async function createTestDatabase(
  serverUrl: string = process.env['DATABASE_URL'] || LOCAL_DATABASE_URL,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `smsgw_test_${randomBytes(6).toString('hex')}`;
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${quoteIdent(name)}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await withClient(serverUrl, async (client) => {
        // Terminate, then drop (DROP … WITH (FORCE) needs Postgres 13; this works on any version).
        for (let attempt = 0; ; attempt++) {
          await client.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
            [name],
          );
          try {
            await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}`);
            return;
          } catch (err) {
            // 55006: still being accessed (a pool reconnected in between).
            if ((err as { code?: string }).code !== '55006' || attempt >= 10) throw err;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      });
    },
  };
}
