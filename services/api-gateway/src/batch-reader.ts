import type { Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { createGunzip, createInflate } from 'node:zlib';
import { TokenParser, TokenType, Tokenizer } from '@streamparser/json';
import { HttpError } from '@smsgw/kit';
import { BatchShapeFilter } from './batch-shape';

export interface BatchReadLimits {
  /** Most bytes of JSON (after decompression). */
  maxBytes: number;
  /** Deepest nesting of objects and arrays; a valid batch needs four. */
  maxDepth: number;
  maxRecipients: number;
}

/**
 * Bytes tokenized before the reader lets other requests run: a chunk that arrives whole (a
 * decompressed one, or a fast client's) is cut so that no write holds the event loop for long.
 */
const SLICE_BYTES = 64 * 1024;

/**
 * Reads a /secure/sendbatch body as it arrives, a slice at a time, instead of parsing it whole:
 * nesting, size and recipients are counted token by token, what a batch cannot hold is left out
 * as it streams (BatchShapeFilter), and reading stops at the first limit crossed. The size limit
 * applies to the decompressed bytes as they come out. After each slice `checkpoint` is told the
 * recipients read so far and may throw (an account that cannot pay for them), so a batch that will
 * be refused stops costing CPU early. `raw`, when given, sees every byte as sent (the request's
 * fingerprint for Idempotency-Key).
 */
export async function readBatchBody(
  body: Readable,
  contentEncoding: string | undefined,
  limits: BatchReadLimits,
  checkpoint: (recipients: number) => void | Promise<void>,
  raw?: Hash,
): Promise<unknown> {
  const source = decoded(raw ? Readable.from(hashed(body, raw)) : body, contentEncoding);
  const tokenizer = new Tokenizer();
  const parser = new TokenParser({ paths: ['$'] });
  const shape = new BatchShapeFilter((token) => parser.write(token));
  let failure: Error | undefined;
  let depth = 0;
  let first = true;
  let root: unknown;

  const fail = (err: unknown): void => {
    failure ??= err instanceof Error ? err : new Error(String(err));
  };
  tokenizer.onToken = (token) => {
    if (failure !== undefined) return;
    try {
      if (first && token.token !== TokenType.LEFT_BRACE)
        throw new HttpError('INVALID_PARAMETER', 'The batch must be a JSON object');
      first = false;
      if (token.token === TokenType.LEFT_BRACE || token.token === TokenType.LEFT_BRACKET) {
        if (++depth > limits.maxDepth)
          throw new HttpError(
            'INVALID_PARAMETER',
            `The batch is nested deeper than ${limits.maxDepth} levels`,
          );
      } else if (token.token === TokenType.RIGHT_BRACE || token.token === TokenType.RIGHT_BRACKET)
        depth--;
      shape.write(token);
      if (shape.recipients > limits.maxRecipients)
        throw HttpError.invalid(
          'messages',
          `the batch has at least ${shape.recipients} recipients; at most ${limits.maxRecipients} are allowed`,
        );
    } catch (err) {
      fail(err);
    }
  };
  tokenizer.onError = (err) => {
    failure ??= invalidJson(err);
  };
  parser.onError = (err) => {
    failure ??= invalidJson(err);
  };
  parser.onValue = ({ value, stack }) => {
    if (stack.length === 0) root = value;
  };

  let bytes = 0;
  reading: for await (const chunk of source) {
    const data = chunk as Buffer;
    for (let at = 0; at < data.length; at += SLICE_BYTES) {
      const slice = data.subarray(at, at + SLICE_BYTES);
      bytes += slice.length;
      if (bytes > limits.maxBytes)
        throw new HttpError(
          'PAYLOAD_TOO_LARGE',
          `The batch is larger than ${limits.maxBytes} bytes`,
        );
      tokenizer.write(slice);
      if (failure !== undefined) break reading;
      await checkpoint(shape.recipients);
      if (at + SLICE_BYTES < data.length) await yieldToOthers();
    }
  }
  if (failure === undefined && !tokenizer.isEnded) tokenizer.end();
  if (failure === undefined && root === undefined && bytes > 0)
    failure = new HttpError('INVALID_PARAMETER', 'The body is not valid JSON: it ends too early');
  if (failure !== undefined) {
    throw failure;
  }
  if (root === undefined) throw new HttpError('INVALID_PARAMETER', 'The batch body is empty');
  await checkpoint(shape.recipients);
  return root;
}

async function* hashed(body: Readable, hash: Hash): AsyncGenerator<Buffer> {
  for await (const chunk of body) {
    hash.update(chunk as Buffer);
    yield chunk as Buffer;
  }
}

function invalidJson(err: Error): HttpError {
  return new HttpError('INVALID_PARAMETER', `The body is not valid JSON: ${err.message}`);
}

function decoded(body: Readable, encoding: string | undefined): Readable {
  const name = (encoding ?? 'identity').trim().toLowerCase();
  if (name === 'identity') return body;
  if (name === 'gzip') return body.pipe(createGunzip());
  if (name === 'deflate') return body.pipe(createInflate());
  throw new HttpError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding ${name} is not supported`);
}

/** Whether a body in this encoding may be larger than it is long on the wire. */
export function isCompressed(encoding: string | undefined): boolean {
  const name = (encoding ?? 'identity').trim().toLowerCase();
  return name !== 'identity';
}
