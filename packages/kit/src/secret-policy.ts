/**
 * What a shared secret must be before a service accepts it. A value anyone can read (the
 * repository's compose file, development overlay and docs) or guess (a placeholder, a short or
 * repetitive string) would let a stranger create accounts or mint tokens on a default install.
 */
import type { Logger } from './logger';

/** The secrets the policy covers, with the fewest characters each must have. */
export const SECRET_MIN_LENGTH = {
  ADMIN_TOKEN: 24,
  JWT_SECRET: 32,
  INTERNAL_TOKEN: 24,
  CONNECTOR_SECRET_KEY: 32,
} as const;

export type SecretName = keyof typeof SECRET_MIN_LENGTH;

/** Set to 1 only on a development install: weak secrets are then accepted with a warning. */
export const INSECURE_DEV_SECRETS_FLAG = 'SMSGW_INSECURE_DEV_SECRETS';

/**
 * Every secret value the repository has published, in this release or an earlier one: the
 * development values of docker-compose.yml and k8s/overlays/dev, and the examples of the docs.
 */
export const PUBLISHED_SECRETS: ReadonlySet<string> = new Set([
  'insecure-dev-admin-token-do-not-deploy',
  'insecure-dev-jwt-secret-do-not-deploy-0123456789',
  'insecure-dev-internal-token-do-not-deploy',
  'insecure-dev-connector-secret-key-do-not-deploy',
  'change-me-admin-token',
  'change-me-jwt-secret-at-least-32-characters',
  'dev-admin-token-change-me',
  'dev-jwt-secret-at-least-32-characters-long',
  'placeholder-admin-token-0123456789',
  'placeholder-jwt-secret-0123456789abcdef0123456789',
]);

/** Words that mark a value somebody meant to replace. */
const PLACEHOLDER =
  /change[-_. ]?me|replace[-_. ]?me|placeholder|insecure|do[-_. ]?not[-_. ]?(use|deploy)|example|your[-_. ]?(secret|token|key)|<[^>]*>|\$\{?[A-Z_]+\}?/i;

/** A random value of the required length has many more distinct characters than this. */
const MIN_DISTINCT_CHARACTERS = 10;

export interface SecretFinding {
  variable: SecretName;
  problem: string;
}

/** Why `value` must not be used as `variable`, or undefined when it may. */
export function secretProblem(variable: SecretName, value: string): string | undefined {
  if (PUBLISHED_SECRETS.has(value.trim()))
    return 'is a value published with sms-gateway (docker-compose.yml, k8s/overlays/dev or the docs), which anyone can read';
  if (PLACEHOLDER.test(value)) return 'looks like a placeholder, not a secret';
  const min = SECRET_MIN_LENGTH[variable];
  if (value.length < min) return `must be at least ${min} characters`;
  if (new Set(value).size < MIN_DISTINCT_CHARACTERS)
    return `has fewer than ${MIN_DISTINCT_CHARACTERS} distinct characters`;
  return undefined;
}

/** The policy's findings for the secrets among `values` (other keys are ignored). */
export function secretFindings(values: Record<string, unknown>): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (const variable of Object.keys(SECRET_MIN_LENGTH) as SecretName[]) {
    const value = values[variable];
    if (typeof value !== 'string') continue;
    const problem = secretProblem(variable, value);
    if (problem) findings.push({ variable, problem });
  }
  return findings;
}

/** How to get a value the policy accepts, for the refusal message. */
export const SECRET_ADVICE = `generate one with \`openssl rand -hex 32\` (or set ${INSECURE_DEV_SECRETS_FLAG}=1 on a development install only)`;

/** The warning a service logs when the development flag let weak secrets through. */
export function insecureSecretsWarning(findings: SecretFinding[]): string {
  const list = findings.map((f) => `${f.variable} ${f.problem}`).join('; ');
  return `INSECURE: ${INSECURE_DEV_SECRETS_FLAG}=1 accepted secrets that anyone can know (${list}). Use this only on a development install that nobody else can reach.`;
}

/**
 * For a service's start: when the development flag let weak secrets through, say so loudly, on
 * stderr (seen even with LOG_LEVEL=silent) and in the log; returns the message, if any.
 */
export function warnAboutInsecureSecrets(
  logger: Logger,
  config: Record<string, unknown>,
): string | undefined {
  if (config[INSECURE_DEV_SECRETS_FLAG] !== true) return undefined;
  const findings = secretFindings(config);
  if (findings.length === 0) return undefined;
  const message = insecureSecretsWarning(findings);
  process.stderr.write(`WARNING ${message}\n`);
  logger.warn({ variables: findings.map((f) => f.variable) }, message);
  return message;
}
