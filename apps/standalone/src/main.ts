import { resolve } from 'node:path';
import {
  createLogger,
  handleShutdown,
  loadConfig,
  runMain,
  warnAboutInsecureSecrets,
} from '@smsgw/kit';
import { standaloneConfigShape } from './config';
import { startEmbeddedGateway } from './embedded-gateway';
import { limitHeapGrowth } from './heap-growth';
import { localSecret } from './local-secrets';
import { startBanner } from './start-banner';

async function main(): Promise<void> {
  limitHeapGrowth();
  const config = loadConfig(standaloneConfigShape);
  const logger = createLogger('standalone', config.LOG_LEVEL);
  const insecure = warnAboutInsecureSecrets(logger, config);
  const admin = localSecret(config.DATA_DIR, 'admin-token', config.ADMIN_TOKEN);
  const jwt = localSecret(config.DATA_DIR, 'jwt-secret', config.JWT_SECRET);

  const gateway = await startEmbeddedGateway(
    { ...config, ADMIN_TOKEN: admin.value, JWT_SECRET: jwt.value },
    logger,
  );
  process.stdout.write(
    startBanner({
      host: config.HOST,
      port: gateway.port,
      smppPort: gateway.smppPort,
      smppTlsPort: gateway.smppTlsPort,
      dataDir: resolve(config.DATA_DIR),
      adminToken: admin.value,
      adminTokenFromEnv: config.ADMIN_TOKEN !== undefined,
      simulator: config.SMSC_URL === undefined,
      simulatorControlUrl: gateway.simulatorControlUrl,
      insecureSecrets: insecure !== undefined,
      console: gateway.consoleServed,
    }),
  );
  handleShutdown(logger, gateway.shutdownSteps, config.SHUTDOWN_TIMEOUT_MS);
}

runMain('sms-gateway', main);
