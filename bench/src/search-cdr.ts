import { memoryMb } from './cluster';

export interface CdrFigures {
  rows: number;
  megabytes: number;
  seconds: number;
  rowsPerSecond: number;
  /** The exporting process's resident memory before, at its largest during, and after (MB). */
  rss: { start: number; peak: number; end: number };
}

const RSS_SAMPLE_MS = 100;

/**
 * One CDR export (CSV) of [since, until) read to its end as fast as this process takes it, with
 * the resident memory of the process that serves it sampled every 100 ms. Rows are the lines
 * after the header.
 */
export async function timeCdrExport(
  baseUrl: string,
  headers: Record<string, string>,
  pid: number | undefined,
  since: Date,
  until: Date,
): Promise<CdrFigures> {
  const start = memoryMb(pid, 'VmRSS');
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, memoryMb(pid, 'VmRSS'));
  }, RSS_SAMPLE_MS);
  const started = performance.now();
  let lines = 0;
  let bytes = 0;
  try {
    const reply = await fetch(
      `${baseUrl}/admin/v1/cdrs?format=csv&since=${since.toISOString()}&until=${until.toISOString()}`,
      { headers },
    );
    if (reply.status !== 200 || !reply.body)
      throw new Error(`CDR export: HTTP ${reply.status} ${await reply.text()}`);
    for await (const chunk of reply.body as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
      for (let at = buffer.indexOf(10); at >= 0; at = buffer.indexOf(10, at + 1)) lines++;
    }
  } finally {
    clearInterval(timer);
  }
  const seconds = (performance.now() - started) / 1000;
  peak = Math.max(peak, memoryMb(pid, 'VmRSS'));
  const rows = Math.max(0, lines - 1);
  return {
    rows,
    megabytes: Math.round(bytes / 1e6),
    seconds: Math.round(seconds * 10) / 10,
    rowsPerSecond: Math.round(rows / seconds),
    rss: { start, peak, end: memoryMb(pid, 'VmRSS') },
  };
}
