import type { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { TokenParser, TokenType, Tokenizer, type ParsedElementInfo } from '@streamparser/json';
import { HttpError } from '@smsgw/kit';

export interface BatchReadLimits {
  /** Most bytes of JSON (after decompression). */
  maxBytes: number;
  /** Deepest nesting of objects and arrays; a valid batch needs four. */
  maxDepth: number;
  maxRecipients: number;
}

/**
 * Reads a /secure/sendbatch body as it arrives, a chunk at a time, instead of parsing it whole:
 * nesting, size and recipients are counted token by token and reading stops at the first limit
 * crossed. After each chunk `checkpoint` is told the recipients read so far and may throw (an
 * account that cannot pay for them), so a batch that will be refused stops costing CPU early.
 */
export async function readBatchBody(
  body: Readable,
  contentEncoding: string | undefined,
  limits: BatchReadLimits,
  checkpoint: (recipients: number) => void | Promise<void>,
): Promise<unknown> {
  const source = decoded(body, contentEncoding);
  const tokenizer = new Tokenizer();
  const parser = new TokenParser({ paths: ['$', '$.messages.*', '$.messages.*.to.*'] });
  let failure: Error | undefined;
  let depth = 0;
  let first = true;
  let recipients = 0;
  let root: unknown;

  const countOne = (): void => {
    recipients++;
    if (recipients > limits.maxRecipients)
      throw HttpError.invalid(
        'messages',
        `the batch has at least ${recipients} recipients; at most ${limits.maxRecipients} are allowed`,
      );
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
      parser.write(token);
    } catch (err) {
      failure = err instanceof Error ? err : new Error(String(err));
    }
  };
  tokenizer.onError = (err) => {
    failure ??= invalidJson(err);
  };
  parser.onError = (err) => {
    failure ??= invalidJson(err);
  };
  parser.onValue = ({ value, stack }: ParsedElementInfo) => {
    try {
      if (stack.length === 0) root = value;
      else if (stack.length === 4) countOne();
      else if (stack.length === 2) {
        // A message whose `to` is one destination (or missing: validation says so later).
        const to = (value as { to?: unknown } | null)?.to;
        if (!Array.isArray(to)) countOne();
      }
    } catch (err) {
      failure ??= err instanceof Error ? err : new Error(String(err));
    }
  };

  let bytes = 0;
  for await (const chunk of source) {
    const data = chunk as Buffer;
    bytes += data.length;
    if (bytes > limits.maxBytes) {
      throw new HttpError('PAYLOAD_TOO_LARGE', `The batch is larger than ${limits.maxBytes} bytes`);
    }
    tokenizer.write(data);
    if (failure !== undefined) break;
    await checkpoint(recipients);
  }
  if (failure === undefined && !tokenizer.isEnded) tokenizer.end();
  if (failure === undefined && root === undefined && bytes > 0)
    failure = new HttpError('INVALID_PARAMETER', 'The body is not valid JSON: it ends too early');
  if (failure !== undefined) {
    throw failure;
  }
  if (root === undefined) throw new HttpError('INVALID_PARAMETER', 'The batch body is empty');
  await checkpoint(recipients);
  return root;
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
