import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets a heap grow past what survived its last full collection, as a percentage.
 * Left to itself V8 lets a heap reach up to four times that when collections are fast: in embedded
 * mode, about 115 MB of heap for 45 MB live (docs/decisions.md § Embedded mode).
 */
export const EMBEDDED_HEAP_GROWING_PERCENT = 50;

/**
 * Applies to every heap of the process, the database's thread included, from the next limit V8
 * computes; so it is called first, before the services start.
 */
export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${EMBEDDED_HEAP_GROWING_PERCENT}`);
}
