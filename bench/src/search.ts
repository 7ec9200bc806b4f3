import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgDb, PgliteDb, migrate, type Db } from '@smsgw/kit';
import { deleteBusNamespace, startService, type ServiceProcess } from '@smsgw/kit/testing';
import { HOUR_MS, dailyStatsAgree, statsFreshness } from '@smsgw/store';
import { withAutovacuum } from './autovacuum';
import { ADMIN_TOKEN, profilingArgs } from './cluster';
import { figure, type FigureTable } from './figure-table';
import { report } from './report';
import { timeCdrExport, type CdrFigures } from './search-cdr';
import {
  HISTORY_DAYS,
  ensureHistory,
  holdsOtherHistory,
  rollWholeHistory,
  type History,
  type Rollup,
} from './search-history';
import { explainQueries } from './search-plans';
import { queryKinds, timeKinds, type KindFigures, type QueryKind } from './search-queries';

const MESSAGES = Number(process.env['BENCH_SEARCH_MESSAGES'] ?? 5_000_000);
const ACCOUNTS = Number(process.env['BENCH_SEARCH_ACCOUNTS'] ?? 1_000);
const REQUESTS = Number(process.env['BENCH_SEARCH_REQUESTS'] ?? 200);
const CDR_ROWS = Number(process.env['BENCH_SEARCH_CDR_ROWS'] ?? 1_000_000);
const EMBEDDED_MESSAGES = Number(process.env['BENCH_SEARCH_EMBEDDED_MESSAGES'] ?? 200_000);
const EMBEDDED_REQUESTS = Number(process.env['BENCH_SEARCH_EMBEDDED_REQUESTS'] ?? 50);
/** The database the history is kept in between runs, on the server DATABASE_URL names. */
const DATABASE = 'smsgw_bench_search';
const TARGET_MS = 200;
const TARGET_ROWS_PER_SECOND = 50_000;
const DAY_MS = 24 * HOUR_MS;
const JWT_SECRET = 'bench-jwt-secret-0123456789-0123456789-0123456789';
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** The export's memory is flat when its peak stays within this much of its start. */
const RSS_BOUND_MB = 64;
const PLANS_FILE = join(tmpdir(), 'smsgw-bench-search-plans.txt');

const serverUrl = () =>
  process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs `fn` on the server's maintenance database. */
async function onServer<T>(fn: (server: Db) => Promise<T>): Promise<T> {
  const server = new PgDb({ connectionString: serverUrl(), max: 1 });
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

/**
 * The history's database, migrated: kept from the run before when it holds a history of this
 * size, else made anew.
 */
async function historyDatabase(): Promise<{ url: string; db: PgDb }> {
  const url = new URL(serverUrl());
  url.pathname = `/${DATABASE}`;
  const open = () => new PgDb({ connectionString: url.toString(), max: 2 });
  const exists = await onServer(async (server) => {
    const { rowCount } = await server.query('SELECT 1 FROM pg_database WHERE datname = $1', [
      DATABASE,
    ]);
    return rowCount > 0;
  });
  let db: PgDb | undefined;
  if (exists) {
    db = open();
    await migrate(db);
    if (await holdsOtherHistory(db, { messages: MESSAGES, accounts: ACCOUNTS })) {
      await db.close();
      db = undefined;
      await onServer((server) => server.query(`DROP DATABASE ${DATABASE}`));
    }
  }
  if (!db) {
    await onServer((server) => server.query(`CREATE DATABASE ${DATABASE}`));
    db = open();
    await migrate(db);
  }
  return { url: url.toString(), db };
}

/**
 * Whether a kept history's statistics are all counted already (by the run that wrote it), by hour
 * and by day: its roll, the longest step, runs again only with BENCH_SEARCH_ROLL=1.
 */
async function keptRollup(db: Db, history: History): Promise<boolean> {
  if (history.generatedSeconds > 0 || process.env['BENCH_SEARCH_ROLL'] === '1') return false;
  const until = new Date(history.endMs);
  const since = new Date(history.endMs - HISTORY_DAYS * DAY_MS);
  return (await statsFreshness(db, since, until, until)).settled && (await dailyStatsAgree(db));
}

interface ModeFigures {
  history: History;
  /** Undefined when the statistics were kept from the run that wrote the history. */
  rollup: Rollup | undefined;
  kinds: KindFigures[];
  cdr: CdrFigures;
}

/** The export's range: the newest CDR_ROWS messages' span (the whole history is spread evenly). */
function cdrRange(history: History, messages: number, maxDays: number): [Date, Date] {
  const until = history.endMs + 1;
  const share = Math.min(1, CDR_ROWS / messages);
  const span = Math.min(maxDays * DAY_MS, Math.ceil(share * 60 * DAY_MS));
  return [new Date(until - span), new Date(until)];
}

/** The timed questions, then the export, against the service answering the admin API. */
async function measure(
  service: ServiceProcess,
  kinds: readonly QueryKind[],
  history: History,
  messages: number,
  requests: number,
): Promise<Pick<ModeFigures, 'kinds' | 'cdr'>> {
  const timed = await timeKinds(service.url, ADMIN, kinds, requests);
  const [since, until] = cdrRange(history, messages, 31);
  const cdr = await timeCdrExport(service.url, ADMIN, service.child.pid, since, until);
  return { kinds: timed, cdr };
}

/** Postgres: the history in its kept database, the auth service alone serving the admin API. */
async function onPostgres(): Promise<ModeFigures & { autovacuum: string; plans: string }> {
  const { url, db } = await historyDatabase();
  try {
    const history = await ensureHistory(db, { messages: MESSAGES, accounts: ACCOUNTS });
    const rollup = (await keptRollup(db, history))
      ? undefined
      : await rollWholeHistory(db, history.endMs, MESSAGES);
    const kinds = await queryKinds(db, '/admin/v1', history.endMs, ACCOUNTS, REQUESTS);
    return await withAutovacuum(async (autovacuum) => {
      const amqp = process.env['AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';
      const namespace = `bench-${randomBytes(4).toString('hex')}`;
      const auth = await startService(
        'auth',
        {
          DATABASE_URL: url,
          AMQP_URL: amqp,
          REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
          BUS_NAMESPACE: namespace,
          INTERNAL_TOKEN: randomBytes(24).toString('hex'),
          CONNECTOR_SECRET_KEY: randomBytes(32).toString('hex'),
          ADMIN_TOKEN,
          JWT_SECRET,
          LOG_LEVEL: 'warn',
        },
        45_000,
        profilingArgs(),
      );
      try {
        const figures = await measure(auth, kinds, history, MESSAGES, REQUESTS);
        process.stderr.write(`search: Postgres ${JSON.stringify(figures)}\n`);
        const plans = await explainQueries(db, history.endMs);
        return { history, rollup, ...figures, autovacuum, plans };
      } finally {
        await auth.stop();
        await deleteBusNamespace(amqp, namespace, {});
      }
    });
  } finally {
    await db.close();
  }
}

/**
 * Embedded mode: a smaller history written into a fresh PGlite data directory, then what
 * `pnpm start` runs, on it (the questions are made before: the process owns the directory).
 */
async function embedded(): Promise<ModeFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'smsgw-bench-search-'));
  try {
    const db = await PgliteDb.open({ dataDir: join(dataDir, 'pgdata') });
    let history: History;
    let rollup: Rollup;
    let kinds: QueryKind[];
    try {
      await migrate(db);
      history = await ensureHistory(db, { messages: EMBEDDED_MESSAGES, accounts: ACCOUNTS });
      rollup = await rollWholeHistory(db, history.endMs, EMBEDDED_MESSAGES);
      kinds = await queryKinds(db, '/admin/v1', history.endMs, ACCOUNTS, EMBEDDED_REQUESTS);
    } finally {
      await db.close();
    }
    const gateway = await startService(
      'standalone',
      { DATA_DIR: dataDir, ADMIN_TOKEN, JWT_SECRET, LOG_LEVEL: 'warn' },
      120_000,
      profilingArgs(),
    );
    try {
      const figures = await measure(gateway, kinds, history, EMBEDDED_MESSAGES, EMBEDDED_REQUESTS);
      return { history, rollup, ...figures };
    } finally {
      await gateway.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const verdict = (ok: boolean) => (ok ? 'met' : 'missed');

function kindsTable(kinds: readonly KindFigures[], target: boolean): FigureTable {
  return {
    columns: [
      target ? 'question, Postgres' : 'question, embedded',
      'requests',
      'rows',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'max ms',
      ...(target ? ['p99 < 200 ms'] : []),
    ],
    rows: kinds.map((k) => [
      k.name,
      k.requests,
      k.rows,
      k.p50,
      k.p95,
      k.p99,
      k.max,
      ...(target ? [verdict(k.p99 < TARGET_MS)] : []),
    ]),
  };
}

function dataTable(pg: ModeFigures, pglite: ModeFigures): FigureTable {
  const row = (mode: string, m: ModeFigures, messages: number) => [
    mode,
    messages,
    ACCOUNTS,
    m.history.generatedSeconds === 0
      ? 'kept from a run before'
      : `${figure(m.history.generatedSeconds)} s`,
    m.rollup?.hours ?? 'kept',
    m.rollup?.seconds,
    m.rollup?.messagesPerSecond,
  ];
  return {
    columns: [
      'database',
      'messages',
      'accounts',
      'written in',
      'hours rolled',
      'roll s',
      'roll messages/s',
    ],
    rows: [row('Postgres', pg, MESSAGES), row('embedded (PGlite)', pglite, EMBEDDED_MESSAGES)],
  };
}

function cdrTable(pg: CdrFigures, pglite: CdrFigures): FigureTable {
  const row = (mode: string, c: CdrFigures, target: boolean) => [
    mode,
    c.rows,
    c.megabytes,
    c.seconds,
    c.rowsPerSecond,
    `${c.rss.start} / ${c.rss.firstTenthPeak} / ${c.rss.peak} / ${c.rss.end}`,
    c.rss.peak - c.rss.start,
    c.rss.peak - c.rss.firstTenthPeak,
    target
      ? verdict(
          c.rowsPerSecond >= TARGET_ROWS_PER_SECOND && c.rss.peak - c.rss.start <= RSS_BOUND_MB,
        )
      : '—',
  ];
  return {
    columns: [
      'CDR export (CSV)',
      'rows',
      'MB',
      's',
      'rows/s',
      'RSS start / peak of first 10 % / peak / end MB',
      'peak − start MB',
      'peak − first 10 % peak MB',
      '≥ 50,000 rows/s, flat',
    ],
    rows: [row('Postgres (auth)', pg, true), row('embedded (standalone)', pglite, false)],
  };
}

/**
 * `pnpm bench search`: the operators' view on a large database (docs/performance.md § Operators'
 * view). A synthetic history of BENCH_SEARCH_MESSAGES messages over 60 days and
 * BENCH_SEARCH_ACCOUNTS accounts, kept in its own database between runs; its statistics rolled up
 * from nothing (timed); then the auth service answering the searches and statistics an operator
 * asks, BENCH_SEARCH_REQUESTS each one after another, and a CDR export of BENCH_SEARCH_CDR_ROWS
 * rows with the service's memory watched. Then the same, smaller, in embedded mode.
 */
export async function benchSearch(): Promise<void> {
  // Embedded mode first: it is the shorter, so a fault there shows before the long part.
  const pglite = await embedded();
  process.stderr.write(`search: embedded ${JSON.stringify(pglite)}\n`);
  const pg = await onPostgres();
  writeFileSync(PLANS_FILE, pg.plans);
  process.stderr.write(`search: the plans are in ${PLANS_FILE}\n`);
  const { plans: _plans, ...postgres } = pg;
  report(
    {
      bench: 'search',
      targets: {
        p99Ms: TARGET_MS,
        cdrRowsPerSecond: TARGET_ROWS_PER_SECOND,
        rssBoundMb: RSS_BOUND_MB,
      },
      postgres,
      embedded: { messages: EMBEDDED_MESSAGES, ...pglite },
    },
    [
      dataTable(pg, pglite),
      kindsTable(pg.kinds, true),
      kindsTable(pglite.kinds, false),
      cdrTable(pg.cdr, pglite.cdr),
    ],
  );
}
