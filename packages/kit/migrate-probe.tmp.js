const { openDb, migrate, createLogger } = require('/work/main/packages/kit/dist/index.js');
(async () => { const logger = require('pino')({level:'warn'}); const db = await openDb({databaseUrl: process.argv[2], dataDir: process.argv[3] ?? '/tmp', logger}); await migrate(db); await db.close(); })().catch(e => { console.error(e); process.exit(1); });
