export * from './embedded-gateway';
export * from './local-secrets';
export * from './start-banner';
export * from './config';
