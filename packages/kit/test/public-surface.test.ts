import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import * as kit from '../src';
import * as testing from '../src/testing';

describe('@smsgw/kit public surface', () => {
  it('keeps test helpers out of the production entry', () => {
    for (const helper of ['waitFor', 'startService', 'createTestDatabase', 'insertTestAccount'])
      expect(kit).not.toHaveProperty(helper);
  });

  it('serves them from @smsgw/kit/testing', () => {
    for (const helper of ['waitFor', 'startService', 'createTestDatabase', 'insertTestAccount'])
      expect(typeof (testing as Record<string, unknown>)[helper]).toBe('function');
  });

  it('resolves both entries through package exports, as a consumer package sees them', () => {
    // A child process, because jest maps @smsgw/* to sources and would not read package exports.
    const consumer = join(__dirname, '..', '..', '..', 'services', 'dispatcher');
    const resolve = (name: string) =>
      execFileSync(process.execPath, ['-p', `require.resolve('${name}')`], {
        cwd: consumer,
        encoding: 'utf8',
      }).trim();
    expect(resolve('@smsgw/kit')).toMatch(/kit[/\\]dist[/\\]index\.js$/);
    expect(resolve('@smsgw/kit/testing')).toMatch(/kit[/\\]dist[/\\]testing[/\\]index\.js$/);
  });
});
