import { z } from 'zod';

/** Half of a surrogate pair alone: not a character, so neither storable as UTF-8 nor sendable. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** Index of the first C0 control character (NUL among them, which Postgres text refuses), or -1. */
function firstControl(text: string, lineBreaks: boolean): number {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x20) continue;
    if (lineBreaks && (unit === TAB || unit === LF || unit === CR)) continue;
    return i;
  }
  return -1;
}

export interface TextRules {
  /** Tab, CR and LF are allowed (message content); other control characters never are. */
  lineBreaks?: boolean;
}

/**
 * Why a text cannot be stored or sent, naming the first offending character and its position
 * (counted in characters, from 1); undefined when it can.
 */
export function unusableCharacter(text: string, rules: TextRules = {}): string | undefined {
  const control = firstControl(text, rules.lineBreaks ?? false);
  const surrogate = LONE_SURROGATE.exec(text)?.index ?? -1;
  const found = [control, surrogate].filter((i) => i >= 0);
  if (found.length === 0) return undefined;
  const index = Math.min(...found);
  const code = text.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0');
  const position = [...text.slice(0, index)].length + 1;
  const what =
    index === surrogate ? 'half of a surrogate pair (invalid UTF-16)' : 'a control character';
  return `character U+${code} at position ${position} is ${what}, which cannot be stored or sent`;
}

/**
 * The text without the characters unusableCharacter names: for text the gateway must store although
 * nobody it could refuse wrote it (an sms-service's answer), where refusing would lose it whole.
 */
export function withoutUnusable(text: string, rules: TextRules = {}): string {
  const lineBreaks = rules.lineBreaks ?? false;
  let kept = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x20) {
      if (lineBreaks && (unit === TAB || unit === LF || unit === CR)) kept += text[i];
      continue;
    }
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      // A whole pair is one character; a half alone is none.
      if (next >= 0xdc00 && next <= 0xdfff) kept += text[i] + text[++i];
      continue;
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) continue;
    kept += text[i];
  }
  return kept;
}

/** The one refinement every free-text field of a request goes through. */
export function refuseUnusable(rules: TextRules = {}) {
  return (text: string, ctx: z.RefinementCtx): void => {
    const why = unusableCharacter(text, rules);
    if (why) ctx.addIssue({ code: 'custom', message: why });
  };
}

/** A string that can be stored and sent: no control characters (but line breaks where allowed), no lone surrogates. */
export function storableText(rules: TextRules = {}, params?: Parameters<typeof z.string>[0]) {
  return z.string(params).superRefine(refuseUnusable(rules));
}
