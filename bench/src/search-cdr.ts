import { memoryMb } from './cluster';

export interface CdrFigures {
  rows: number;
  megabytes: number;
  seconds: number;
  rowsPerSecond: number;
  /**
   * The exporting process's resident memory before, at its largest over the first tenth of the
   * rows, at its largest over the whole export, and after (MB): a process whose memory does not
   * grow with the export's length has about the same two peaks.
   */
  rss: { start: number; firstTenthPeak: number; peak: number; end: number };
}

const RSS_SAMPLE_MS = 250;

/**
 * One CDR export (CSV) of [since, until) read to its end as fast as this process takes it, with
 * the resident memory of the process that serves it sampled every 250 ms, with the rows read by
 * then. Rows are the lines after the header.
 */
export async function timeCdrExport(
  baseUrl: string,
  headers: Record<string, string>,
  pid: number | undefined,
  since: Date,
  until: Date,
): Promise<CdrFigures> {
  const start = memoryMb(pid, 'VmRSS');
  let lines = 0;
  const samples: { lines: number; mb: number }[] = [{ lines: 0, mb: start }];
  const timer = setInterval(() => {
    samples.push({ lines, mb: memoryMb(pid, 'VmRSS') });
  }, RSS_SAMPLE_MS);
  const started = performance.now();
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
  samples.push({ lines, mb: memoryMb(pid, 'VmRSS') });
  const rows = Math.max(0, lines - 1);
  const peakOf = (list: { mb: number }[]) => Math.max(...list.map((x) => x.mb));
  const firstTenth = samples.filter((x) => x.lines <= rows / 10 + 1);
  return {
    rows,
    megabytes: Math.round(bytes / 1e6),
    seconds: Math.round(seconds * 10) / 10,
    rowsPerSecond: Math.round(rows / seconds),
    rss: {
      start,
      firstTenthPeak: peakOf(firstTenth),
      peak: peakOf(samples),
      end: memoryMb(pid, 'VmRSS'),
    },
  };
}
