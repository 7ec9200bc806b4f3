import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, parseConfig } from '@smsgw/kit';
import {
  standaloneConfigShape,
  startEmbeddedGateway,
  type EmbeddedGateway,
} from '@smsgw/standalone';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const JWT_SECRET = 'test-jwt-secret-0123456789-0123456789-abcdef';

export interface RunningGateway {
  base: string;
  dataDir: string;
  gateway: EmbeddedGateway;
  stop(): Promise<void>;
}

/**
 * Embedded mode exactly as `pnpm start` wires it, on a random loopback port. The environment is
 * given explicitly so URLs set for the distributed tests never leak into the embedded ones.
 */
export async function startEmbedded(
  env: Record<string, string>,
  dataDir = mkdtempSync(join(tmpdir(), 'smsgw-embedded-')),
): Promise<RunningGateway> {
  const config = parseConfig(standaloneConfigShape, {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    ADMIN_TOKEN,
    JWT_SECRET,
    // The suites send from senders of their choosing; sender rules have their own (tests/security).
    UNLISTED_SENDERS: 'any',
    // Suites run side by side: the SMPP server takes a free port too.
    SMPP_SERVER_PORT: '0',
    ...env,
  });
  const gateway = await startEmbeddedGateway(
    { ...config, ADMIN_TOKEN, JWT_SECRET },
    createLogger('test', 'silent'),
  );
  return {
    base: `http://127.0.0.1:${gateway.port}`,
    dataDir,
    gateway,
    async stop() {
      for (const step of gateway.shutdownSteps) await step.run();
    },
  };
}
