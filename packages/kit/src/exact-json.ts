import express, { type RequestHandler } from 'express';
import { isSafeNumber, parse } from 'lossless-json';
import { HttpError } from './http-error';

/** A JSON number whose digits a double cannot hold: kept as written until the reviver refuses it. */
class InexactNumber {
  constructor(readonly text: string) {}
}

/**
 * Parses JSON as JSON.parse does, except that a number a double would round (more significant
 * digits than it holds, or out of its range) is refused with a 400 naming its field, instead of
 * being stored rounded. For amounts of money and counts, where a rounded value is a wrong value.
 */
export function parseExactJson(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return parse(
      text,
      (key, value) => {
        if (value instanceof InexactNumber)
          throw HttpError.invalid(
            key === '' ? 'body' : key,
            `${value.text} cannot be read exactly as a JSON number; send it as a decimal string`,
          );
        return value;
      },
      (digits) => (isSafeNumber(digits) ? Number(digits) : new InexactNumber(digits)),
    );
  } catch (err) {
    if (err instanceof HttpError) throw err;
    // A syntax error, or nesting too deep for the parser's stack: either way not a body we take.
    throw new HttpError('INVALID_PARAMETER', 'Request body is not valid JSON', { field: 'body' });
  }
}

/** The body as text, then parseExactJson; the media type is checked by jsonBody's guard first. */
export function exactJsonParser(limitBytes: number): RequestHandler[] {
  return [
    express.text({ limit: limitBytes, type: () => true }),
    (req, _res, next) => {
      try {
        req.body = parseExactJson(typeof req.body === 'string' ? req.body : '');
        next();
      } catch (err) {
        next(err);
      }
    },
  ];
}
