/** Tests run against sources (swc strips types; `tsc -b` typechecks). */
const path = require('node:path');
const workspaces = {
  contracts: 'packages/contracts', kit: 'packages/kit', smsc: 'packages/smsc',
  auth: 'services/auth', 'api-gateway': 'services/api-gateway', dispatcher: 'services/dispatcher',
  'batch-scheduler': 'services/batch-scheduler', 'callback-notifier': 'services/callback-notifier',
  standalone: 'apps/standalone', cli: 'apps/cli',
};
const moduleNameMapper = {};
for (const [name, dir] of Object.entries(workspaces)) {
  moduleNameMapper[`^@smsgw/${name}$`] = path.join(__dirname, dir, 'src');
}
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/apps', '<rootDir>/tests'],
  testMatch: ['**/test/**/*.test.ts', '<rootDir>/tests/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }] },
  moduleNameMapper,
  testTimeout: 30000,
  maxWorkers: 2,
};
