export * from './program';
export * from './gateway-client';
export * from './cli-settings';
