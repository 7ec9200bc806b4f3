import { RE2JS } from 're2js';

/**
 * A route's `pattern` is run against every recipient of every batch, so it is compiled with RE2
 * (re2js): matching takes time linear in the destination's length whatever the pattern, and the
 * constructs that make backtracking engines blow up (backreferences, lookarounds) do not compile.
 */

/** Longest pattern an operator may give. */
export const MAX_ROUTE_PATTERN_LENGTH = 200;
/**
 * Largest count a repetition (`{n}`, `{n,m}`) may name: a destination has at most 15 digits, and
 * larger counts only make the compiled program, and so each match, bigger.
 */
export const MAX_ROUTE_PATTERN_REPEAT = 20;

const REPEAT = /\{(\d+)(?:,(\d*))?\}/g;

/** Why the pattern cannot be a route's, or undefined when it can. */
export function routePatternProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'expected a regular expression';
  if (pattern.length > MAX_ROUTE_PATTERN_LENGTH)
    return `expected at most ${MAX_ROUTE_PATTERN_LENGTH} characters`;
  for (const [, min, max] of pattern.matchAll(REPEAT))
    if (Number(min) > MAX_ROUTE_PATTERN_REPEAT || Number(max || 0) > MAX_ROUTE_PATTERN_REPEAT)
      return `expected repetition counts of at most ${MAX_ROUTE_PATTERN_REPEAT}`;
  try {
    RE2JS.compile(pattern);
  } catch (err) {
    return `expected an RE2 regular expression (no backreferences or lookarounds): ${(err as Error).message}`;
  }
  return undefined;
}

/** A whole-destination matcher of a pattern routePatternProblem accepts; throws on any other. */
export function compileRoutePattern(pattern: string): (destination: string) => boolean {
  const problem = routePatternProblem(pattern);
  if (problem) throw new Error(`route pattern refused: ${problem}`);
  const compiled = RE2JS.compile(pattern);
  return (destination) => compiled.matches(destination);
}
