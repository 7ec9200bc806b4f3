export * from './test-database';
export * from './embedded-database';
export * from './wait-for';
export * from './service-process';
export * from './bus-namespace';
export * from './certificate';
export * from './migrated-databases';
