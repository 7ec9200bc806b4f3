/** Tests run against sources (swc strips types; `tsc -b` typechecks). */
const path = require('node:path');
const workspaces = {
  contracts: 'packages/contracts',
  kit: 'packages/kit',
  smsc: 'packages/smsc',
  store: 'packages/store',
  routing: 'packages/routing',
  acceptance: 'packages/acceptance',
  'message-log': 'packages/message-log',
  'console-session': 'packages/console-session',
  auth: 'services/auth',
  'api-gateway': 'services/api-gateway',
  dispatcher: 'services/dispatcher',
  'batch-scheduler': 'services/batch-scheduler',
  'callback-notifier': 'services/callback-notifier',
  'smpp-server': 'services/smpp-server',
  standalone: 'apps/standalone',
  cli: 'apps/cli',
};
const moduleNameMapper = {};
for (const [name, dir] of Object.entries(workspaces)) {
  moduleNameMapper[`^@smsgw/${name}$`] = path.join(__dirname, dir, 'src');
}
moduleNameMapper['^@smsgw/kit/testing$'] = path.join(__dirname, 'packages/kit/src/testing');
// Distributed-mode tests need real Postgres and RabbitMQ. CI sets their URLs and then they run (and
// fail if a server is missing); without the URLs they are left out here, with a visible note.
const distributedTests = [
  '<rootDir>/tests/e2e/',
  '<rootDir>/tests/security/distributed/',
  '<rootDir>/packages/kit/test/db-pg.test.ts',
  '<rootDir>/packages/kit/test/bus-amqp.test.ts',
  // Embedded mode on a real Postgres, which the suite also writes dispatchers' status rows to.
  '<rootDir>/tests/api/connectors-admin.test.ts',
];
const haveServers = Boolean(process.env.DATABASE_URL && process.env.AMQP_URL);
if (!haveServers) {
  process.stderr.write(
    'note: DATABASE_URL and AMQP_URL are not set, so the distributed-mode tests do not run (CI sets them)\n',
  );
}

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/apps', '<rootDir>/tests'],
  testMatch: ['**/test/**/*.test.ts', '<rootDir>/tests/**/*.test.ts'],
  testPathIgnorePatterns: [
    '/node_modules/',
    '/dist/',
    ...(haveServers ? [] : distributedTests),
    // The whole fault matrix takes many minutes: `pnpm test:faults` runs it; with the servers' URLs
    // set (CI) the suite runs five of its rows in quick mode (tests/faults/matrix.test.ts).
    ...(process.env.FAULTS === '1' || haveServers ? [] : ['<rootDir>/tests/faults/']),
    ...(process.env.REDIS_URL
      ? []
      : [
          '<rootDir>/services/dispatcher/test/redis-rate-limiter.test.ts',
          '<rootDir>/services/auth/test/redis-login-throttle.test.ts',
          '<rootDir>/services/smpp-server/test/redis-account-limits.test.ts',
        ]),
  ],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  moduleNameMapper,
  // A ceiling, not a measure: on a two-core machine that is slower by half, an embedded gateway's
  // start beside another suite took more than 30 s.
  testTimeout: 60000,
  maxWorkers: 2,
};
