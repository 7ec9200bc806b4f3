import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { HttpError } from '@smsgw/kit';
import { readBatchBody } from '../src/batch-reader';

const limits = { maxBytes: 1 << 20, maxDepth: 5, maxRecipients: 1000 };

/** The text in chunks of `size` bytes, counting how many were pulled. */
function chunked(text: string | Buffer, size = 16): { stream: Readable; pulled: () => number } {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  let pulled = 0;
  const stream = Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += size) {
        pulled++;
        yield bytes.subarray(at, at + size);
      }
    })(),
  );
  return { stream, pulled: () => pulled };
}

async function refusal(promise: Promise<unknown>): Promise<HttpError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HttpError);
  return err as HttpError;
}

describe('readBatchBody', () => {
  it('reads a batch as JSON.parse would, counting recipients of lists and single destinations', async () => {
    const batch = {
      globals: { from: 'Acme' },
      messages: [
        { to: ['1', '2', '3'], content: 'é' },
        { to: '4', content: 'x' },
      ],
    };
    const seen: number[] = [];
    const body = await readBatchBody(
      chunked(JSON.stringify(batch)).stream,
      undefined,
      limits,
      (n) => {
        seen.push(n);
      },
    );
    expect(body).toEqual(batch);
    expect(seen[seen.length - 1]).toBe(4);
  });

  it('reads gzip', async () => {
    const batch = { messages: [{ to: '1', content: 'x' }] };
    const gz = gzipSync(JSON.stringify(batch));
    expect(await readBatchBody(chunked(gz).stream, 'gzip', limits, () => undefined)).toEqual(batch);
  });

  it('stops inside one long list of destinations at the recipient limit', async () => {
    const to = Array.from({ length: 5000 }, (_, i) => String(i));
    const source = chunked(JSON.stringify({ messages: [{ to, content: 'x' }] }), 256);
    const err = await refusal(readBatchBody(source.stream, undefined, limits, () => undefined));
    expect(err.code).toBe('INVALID_PARAMETER');
    expect(source.pulled()).toBeLessThan(Math.ceil(JSON.stringify(to).length / 256) / 2);
  });

  it('stops at the first chunk whose recipients the checkpoint refuses', async () => {
    const messages = Array.from({ length: 500 }, (_, i) => ({ to: String(i), content: 'x' }));
    const source = chunked(JSON.stringify({ messages }), 64);
    const err = await refusal(
      readBatchBody(source.stream, undefined, limits, (n) => {
        if (n > 3) throw new HttpError('INSUFFICIENT_CREDIT', 'no');
      }),
    );
    expect(err.code).toBe('INSUFFICIENT_CREDIT');
    expect(source.pulled()).toBeLessThan(10);
  });

  it.each([
    ['[1]', /JSON object/],
    ['{"messages":[[[[[[1]]]]]]}', /nested deeper than 5/],
    ['{"messages": [', /not valid JSON/],
    ['{"messages": x}', /not valid JSON/],
    ['', /empty/],
  ])('refuses %s with a 400', async (text, message) => {
    const err = await refusal(
      readBatchBody(chunked(text).stream, undefined, limits, () => undefined),
    );
    expect(err.status).toBe(400);
    expect(err.message).toMatch(message);
  });

  it('refuses more bytes than the limit with a 413, and an unknown encoding with a 415', async () => {
    const big = JSON.stringify({ messages: [{ to: '1', content: 'x'.repeat(2000) }] });
    const tooLarge = await refusal(
      readBatchBody(
        chunked(big, 256).stream,
        undefined,
        { ...limits, maxBytes: 1024 },
        () => undefined,
      ),
    );
    expect(tooLarge.status).toBe(413);
    const unknown = await refusal(
      readBatchBody(chunked('{}').stream, 'br', limits, () => undefined),
    );
    expect(unknown.status).toBe(415);
  });
});

describe('what a batch cannot hold is left out as it streams', () => {
  const read = (body: unknown): Promise<unknown> =>
    readBatchBody(chunked(JSON.stringify(body)).stream, undefined, limits, () => undefined);

  it('keeps a field a batch may not have as null, at the top, in globals, config and messages', async () => {
    const junk = [{}, [1, 2], { a: 1 }];
    expect(
      await read({
        messages: [{ to: ['1', '2'], content: 'x', junk, 'dlr-url': 'https://x.example' }],
        globals: { from: 'Acme', junk },
        batch_config: { schedule_at: '10s', junk },
        junk,
      }),
    ).toEqual({
      messages: [{ to: ['1', '2'], content: 'x', junk: null, 'dlr-url': 'https://x.example' }],
      globals: { from: 'Acme', junk: null },
      batch_config: { schedule_at: '10s', junk: null },
      junk: null,
    });
  });

  it('keeps a container where a value belongs empty, so validation names the type it got', async () => {
    expect(
      await read({ messages: [{ to: [{ deep: 1 }, '2'], content: ['a', 'b'], from: {} }] }),
    ).toEqual({ messages: [{ to: [{}, '2'], content: [], from: {} }] });
  });

  it('keeps no more tags than validation needs to refuse them, and cuts long field names', async () => {
    const tags = Array.from({ length: 10_000 }, (_, i) => i);
    const name = 'n'.repeat(10_000);
    const read1 = (await read({ messages: [{ to: '1', content: 'x', tags, [name]: 1 }] })) as {
      messages: Record<string, unknown>[];
    };
    const message = read1.messages[0] ?? {};
    expect((message['tags'] as number[]).length).toBe(64);
    expect(Object.keys(message).sort()).toEqual(['content', 'n'.repeat(64), 'tags', 'to']);
  });

  it('counts a message with an empty or missing list as one recipient, so empty messages cannot pile up unpaid', async () => {
    const seen: number[] = [];
    const body = JSON.stringify({ messages: [{ to: [] }, {}, { to: ['1', '2', '3'] }] });
    await readBatchBody(chunked(body, 4096).stream, undefined, limits, (n) => {
      seen.push(n);
    });
    expect(seen[seen.length - 1]).toBe(5);
  });
});
