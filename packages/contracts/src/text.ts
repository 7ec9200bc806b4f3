import { z } from 'zod';

/** C0 controls; NUL among them, which a Postgres text column refuses to hold. */
const CONTROL = /[\u0000-\u001f]/;
/** The same without tab, line feed and carriage return, which message text may carry. */
const CONTROL_BUT_LINE_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
/** Half of a surrogate pair alone: not a character, so neither storable as UTF-8 nor sendable. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export interface TextRules {
  /** Tab, CR and LF are allowed (message content); other control characters never are. */
  lineBreaks?: boolean;
}

/**
 * Why a text cannot be stored or sent, naming the first offending character and its position
 * (counted in characters, from 1); undefined when it can.
 */
export function unusableCharacter(text: string, rules: TextRules = {}): string | undefined {
  const control = (rules.lineBreaks ? CONTROL_BUT_LINE_BREAKS : CONTROL).exec(text);
  const surrogate = LONE_SURROGATE.exec(text);
  const first = [control, surrogate]
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => a.index - b.index)[0];
  if (!first) return undefined;
  const code = text.charCodeAt(first.index).toString(16).toUpperCase().padStart(4, '0');
  const position = [...text.slice(0, first.index)].length + 1;
  const what =
    first === surrogate ? 'half of a surrogate pair (invalid UTF-16)' : 'a control character';
  return `character U+${code} at position ${position} is ${what}, which cannot be stored or sent`;
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
