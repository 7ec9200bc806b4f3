import { Counter, type Registry } from 'prom-client';

/** Why a login was answered without checking its password. */
export type ThrottleReason = 'name' | 'address' | 'kdf_busy';

export interface AuthMetrics {
  loginThrottled: Counter<'reason'>;
}

const REASONS: readonly ThrottleReason[] = ['name', 'address', 'kdf_busy'];

export function createAuthMetrics(registry: Registry): AuthMetrics {
  const loginThrottled = new Counter({
    name: 'smsgw_auth_login_throttled_total',
    help: 'Logins refused before their password was checked, by reason',
    labelNames: ['reason'],
    registers: [registry],
  });
  // Every reason from the start, so a dashboard's rate() sees the first refusal.
  for (const reason of REASONS) loginThrottled.labels(reason).inc(0);
  return { loginThrottled };
}
