import { z } from 'zod';

/**
 * Sender rules of an account: which senders (`from`) it may use. A pattern is a glob: `*` stands
 * for any run of characters, `?` for one, everything else for itself (case counts: a brand is
 * shown as written). No regular expressions, so no pattern can be slow or surprising.
 */
export const SENDER_POLICIES = ['refuse', 'replace'] as const;
export type SenderPolicy = (typeof SENDER_POLICIES)[number];

/** What the operator lets an account without rules do (UNLISTED_SENDERS). */
export const UNLISTED_SENDER_MODES = ['refuse', 'any'] as const;
export type UnlistedSenderMode = (typeof UNLISTED_SENDER_MODES)[number];

export const SenderPatternSchema = z
  .string()
  .trim()
  .refine(
    (s) => /^\+?[\d*?]{1,15}$/.test(s) || /^[A-Za-z0-9 ._&@'!#%*+,/:?-]{1,11}$/.test(s),
    'expected a sender of up to 15 digits or 11 alphanumeric characters, with * and ? as wildcards',
  );

/** PUT /admin/v1/accounts/{username}/senders: the whole list, replacing the one before. */
export const SenderRulesSchema = z.strictObject({
  senders: z.array(SenderPatternSchema).max(1000, 'at most 1000 senders'),
  /** What happens to a sender not on the list: refused (SENDER_NOT_ALLOWED) or replaced by default_from. */
  policy: z.enum(SENDER_POLICIES).default('refuse'),
});
export type SenderRules = z.output<typeof SenderRulesSchema>;

export const SenderRulesViewSchema = z.object({
  username: z.string(),
  /** false: neither the account nor its group has a list, and UNLISTED_SENDERS decides. */
  configured: z.boolean(),
  senders: z.array(z.string()),
  policy: z.enum(SENDER_POLICIES).nullable(),
  default_from: z.string().nullable(),
  /** The customer group whose list applies, when the account has none of its own. */
  from_group: z.string().nullable(),
});
export type SenderRulesView = z.infer<typeof SenderRulesViewSchema>;

/** A number with or without its leading `+` is the same sender. */
function canonicalSender(value: string): string {
  return /^\+\d+$/.test(value) ? value.slice(1) : value;
}

/** Whether two senders are the same (a number with or without its `+`). */
export function sameSender(a: string, b: string): boolean {
  return canonicalSender(a) === canonicalSender(b);
}

/** Whether `sender` fits the glob `pattern` (linear-time matching with one backtrack point). */
export function senderMatches(pattern: string, sender: string): boolean {
  const p = /^\+[\d*?]+$/.test(pattern) ? pattern.slice(1) : pattern;
  const s = canonicalSender(sender);
  let pi = 0;
  let si = 0;
  let starAt = -1;
  let resumeAt = 0;
  while (si < s.length) {
    if (pi < p.length && (p[pi] === '?' || (p[pi] !== '*' && p[pi] === s[si]))) {
      pi++;
      si++;
    } else if (pi < p.length && p[pi] === '*') {
      starAt = pi++;
      resumeAt = si;
    } else if (starAt >= 0) {
      pi = starAt + 1;
      si = ++resumeAt;
    } else return false;
  }
  while (pi < p.length && p[pi] === '*') pi++;
  return pi === p.length;
}
