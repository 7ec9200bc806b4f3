import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The web console's build (apps/console/dist), which `npm start` and `npm test` make before the
 * gateway starts; a checkout built without it (`tsc -b` alone) serves no console, and says so.
 */
export function builtConsole(): string | undefined {
  const dist = join(dirname(require.resolve('@smsgw/console/package.json')), 'dist');
  return existsSync(join(dist, 'index.html')) ? dist : undefined;
}
