import { openPglite } from './pglite-engine';

/** Creates the embedded database in the directory given, then exits (pglite-thread.ts). */
const dataDir = process.argv[2];
if (dataDir === undefined) throw new Error('usage: pglite-create <data directory>');
void openPglite(dataDir).then((pg) => pg.close());
