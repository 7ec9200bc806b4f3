import type { RequestHandler } from 'express';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** A content type without parameters, or whose one parameter is charset=utf-8. */
const PLAIN_TYPE = /^[^;]*(;\s*charset\s*=\s*("utf-8"|utf-8)\s*)?$/i;
const DIGITS = /^\d+$/;

/** Fails as body-parser fails (its error `type`), so toHttpError answers both readers alike. */
function bodyError(type: 'entity.parse.failed' | 'request.aborted'): Error {
  return Object.assign(new Error(type), { type });
}

/** Whether body-parser's JSON reading would do nothing but read the bytes and JSON.parse them. */
export function isPlainJsonBody(headers: IncomingHttpHeaders, limit: number): boolean {
  const length = headers['content-length'];
  const coding = headers['content-encoding'];
  const type = headers['content-type'];
  return (
    length !== undefined &&
    DIGITS.test(length) &&
    Number(length) <= limit &&
    headers['transfer-encoding'] === undefined &&
    (coding === undefined || coding.toLowerCase() === 'identity') &&
    (type === undefined || PLAIN_TYPE.test(type))
  );
}

/**
 * Reads a body isPlainJsonBody accepts as express.json would: an empty body is `{}`, a byte order
 * mark is dropped, malformed JSON fails as body-parser fails, and so does a client gone before the end.
 */
export function readPlainJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    // Gone while its credentials were checked: its 'close' has been and will not come again.
    if (req.destroyed) {
      reject(bodyError('request.aborted'));
      return;
    }
    const chunks: Buffer[] = [];
    const stop = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onError);
    };
    const onData = (chunk: Buffer): void => void chunks.push(chunk);
    const onError = (): void => {
      stop();
      reject(bodyError('request.aborted'));
    };
    const onEnd = (): void => {
      stop();
      const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      let text = bytes === undefined ? '' : bytes.toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.length === 0) {
        resolve({});
        return;
      }
      try {
        resolve(JSON.parse(text) as unknown);
      } catch {
        reject(bodyError('entity.parse.failed'));
      }
    };
    req.on('data', onData);
    req.on('end', onEnd);
    // A client gone before the end: 'error' or, without one, 'close' (after 'end' it is settled).
    req.on('error', onError);
    req.on('close', onError);
  });
}

/**
 * Reads a JSON body that comes the usual way — its length given and within the limit, no content
 * coding, UTF-8 — and gives every other request to `fallback` (express.json), which knows
 * compressed bodies, other charsets and chunked uploads. For the usual body it does what
 * express.json does without its per-request stream decoder, listeners and checks: /secure/send
 * comes by the thousand (docs/decisions.md § HTTP).
 */
export function plainJsonBody(limitBytes: number, fallback: RequestHandler): RequestHandler {
  return (req, res, next) => {
    if (!req.readable || !isPlainJsonBody(req.headers, limitBytes)) {
      fallback(req, res, next);
      return;
    }
    readPlainJson(req).then((body) => {
      req.body = body;
      next();
    }, next);
  };
}
