import type { z } from 'zod';
import type { ErrorItem } from '@smsgw/contracts';
import { HttpError } from './http-error';

/** One readable item per zod issue; unknown keys are named one by one. */
export function describeIssues(error: z.ZodError): ErrorItem[] {
  const items: ErrorItem[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        items.push({ field: [...path, key].join('.'), message: 'unknown field' });
      continue;
    }
    const message =
      issue.code === 'invalid_type' && /received undefined/.test(issue.message)
        ? 'is required'
        : issue.message;
    items.push({ field: path.length > 0 ? path.join('.') : 'body', message });
  }
  return items;
}

/** Parses input at the edge; bad input becomes a 400 naming the first offending field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const first = describeIssues(result.error)[0];
  throw HttpError.invalid(first.field, first.message);
}
