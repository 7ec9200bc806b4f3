import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import ts from 'typescript';

/**
 * Every SQL statement that touches a table of the migrations lives in packages/store, in the
 * module of that table's family, so that a reader of one table finds its statements in one place.
 * A compound statement that also touches tables of other families (or a piece of one, such as a
 * subquery) lives in the module of one of them, and each other family's module names it.
 */

const ROOT = join(__dirname, '..', '..', '..');
const STORE_SRC = join(ROOT, 'packages', 'store', 'src');
const MIGRATIONS = join(ROOT, 'packages', 'kit', 'migrations');

/** Which module holds the statements of each table. */
const MODULE_OF: Record<string, string> = {
  accounts: 'accounts.ts',
  applications: 'accounts.ts',
  credit_ledger: 'credit-ledger.ts',
  messages: 'messages.ts',
  message_parts: 'messages.ts',
  batches: 'batches.ts',
  batch_entries: 'batches.ts',
  job_outbox: 'job-outbox.ts',
  outcome_outbox: 'outcome-outbox.ts',
  callback_attempts: 'callbacks.ts',
  idempotency_keys: 'idempotency-keys.ts',
  sender_policies: 'sender-rules.ts',
  account_senders: 'sender-rules.ts',
  inbound_messages: 'inbound-messages.ts',
  inbound_parts: 'inbound-messages.ts',
  connectors: 'connectors.ts',
  connector_status: 'connector-status.ts',
  mt_routes: 'mt-routes.ts',
  mo_routes: 'mo-routes.ts',
  sms_service_replies: 'sms-service-replies.ts',
  optouts: 'optouts.ts',
  optout_settings: 'optouts.ts',
  message_partitions: 'message-partitions.ts',
  admin_tokens: 'admin-tokens.ts',
  smpp_access: 'smpp-access.ts',
  smpp_deliveries: 'smpp-deliveries.ts',
  smpp_sessions: 'smpp-sessions.ts',
  admin_audit: 'audit-log.ts',
  console_sessions: 'console-sessions.ts',
  cdrs: 'cdrs.ts',
  calling_codes: 'cdrs.ts',
  message_stats: 'message-stats.ts',
  message_stats_watermark: 'message-stats.ts',
  message_stats_daily: 'message-stats.ts',
  message_stats_accounts: 'message-stats.ts',
  message_stats_pending: 'message-stats.ts',
  price_lists: 'price-lists.ts',
  price_list_versions: 'price-lists.ts',
  price_list_rows: 'price-lists.ts',
  customer_groups: 'price-lists.ts',
  connector_costs: 'price-lists.ts',
  pricing_changes: 'price-lists.ts',
};

/** Each table once, though a migration may create it again (as partitioned, migration 022). */
function migrationTables(): string[] {
  const created = readdirSync(MIGRATIONS)
    .filter((f) => f.endsWith('.sql'))
    .flatMap((f) =>
      [...readFileSync(join(MIGRATIONS, f), 'utf8').matchAll(/CREATE TABLE (\w+)/g)].map(
        (m) => m[1],
      ),
    );
  return [...new Set(created)];
}

/** The non-test TypeScript sources: src folders, without test support (src/testing) or builds. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (['node_modules', 'dist', 'test', 'testing', 'migrations'].includes(name)) return [];
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Statement {
  file: string;
  /** The top-level declaration holding the text: a function or a constant. */
  holder: string;
  tables: string[];
}

const TABLE_REFERENCE = new RegExp(
  `\\b(?:FROM|INTO|UPDATE|JOIN|USING|TABLE)\\s+(${Object.keys(MODULE_OF).join('|')})\\b`,
  'g',
);

function holderOf(node: ts.Node): string {
  let top = node;
  while (top.parent !== undefined && !ts.isSourceFile(top.parent)) top = top.parent;
  if (ts.isFunctionDeclaration(top) || ts.isClassDeclaration(top)) return top.name?.text ?? '?';
  if (ts.isVariableStatement(top)) return top.declarationList.declarations[0].name.getText();
  return '?';
}

/** Every string or template text of the file that names a table the way SQL does. */
function statements(file: string): Statement[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.ES2022,
    true,
  );
  const found: Statement[] = [];
  const visit = (node: ts.Node): void => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    // A template's literal parts, with each substitution as a space.
    if (ts.isTemplateExpression(node))
      text = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' ');
    if (text !== undefined) {
      const tables = [...new Set([...text.matchAll(TABLE_REFERENCE)].map((m) => m[1]))];
      if (tables.length > 0) found.push({ file, holder: holderOf(node), tables });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const where = (s: Statement): string => `${relative(ROOT, s.file)} (${s.holder})`;

describe('SQL by table', () => {
  it('knows the module of every table the migrations create', () => {
    expect(migrationTables().sort()).toEqual(Object.keys(MODULE_OF).sort());
  });

  it('finds no statement on a table outside packages/store', () => {
    const outside = ['packages', 'services', 'apps', 'bench']
      .flatMap((dir) => sources(join(ROOT, dir)))
      .filter((file) => !file.startsWith(STORE_SRC))
      .flatMap(statements);
    expect(outside.map(where)).toEqual([]);
  });

  it("keeps each statement in its table's module, or names it in that module", () => {
    const misplaced: string[] = [];
    const inStore = sources(STORE_SRC).flatMap(statements);
    expect(inStore.length).toBeGreaterThan(40);
    for (const statement of inStore) {
      const module = basename(statement.file);
      for (const table of statement.tables.filter((t) => MODULE_OF[t] !== module)) {
        const owner = readFileSync(join(STORE_SRC, MODULE_OF[table]), 'utf8');
        if (!owner.includes(`${module} `) || !owner.includes(statement.holder))
          misplaced.push(`${where(statement)}: ${MODULE_OF[table]} does not name it (${table})`);
      }
    }
    expect(misplaced).toEqual([]);
  });
});
