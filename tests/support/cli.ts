import { buildProgram } from '@smsgw/cli';
import { ADMIN_TOKEN } from './embedded';

/** Runs one smsgw command in-process against a gateway at `base`; returns what it printed. */
export async function runSmsgw(
  base: string,
  args: string[],
  env: Record<string, string> = {},
  progress?: NodeJS.WritableStream,
): Promise<string> {
  const lines: string[] = [];
  const program = buildProgram({
    env: { SMSGW_URL: base, SMSGW_ADMIN_URL: base, SMSGW_ADMIN_TOKEN: ADMIN_TOKEN, ...env },
    print: (line) => lines.push(line),
    printError: () => undefined,
    pollMs: 100,
    ...(progress && { progress }),
  });
  await program.parseAsync(['node', 'smsgw', ...args]);
  return lines.join('\n');
}
