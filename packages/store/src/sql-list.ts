/**
 * A group of states as the items of an SQL `IN (…)`: `'accepted', 'queued'`. For constants of
 * `@smsgw/contracts` only, never for input: the text goes into the statement as it is.
 */
export function sqlList(values: readonly string[]): string {
  return values.map((value) => `'${value}'`).join(', ');
}
