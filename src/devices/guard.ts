/**
 * What every device actor shares for the trust check (devices/trust.ts): the comm key throttle and the
 * refusal metrics (README "Security model", "Metrics").
 */
import type { Clock } from '../clock.js';
import { Counter, Gauge, type MetricsRegistry } from '../ops/metrics.js';
import type { TrustRefusal } from './trust.js';
import { createCommKeyThrottle, THROTTLE_DEFAULTS, type CommKeyThrottle, type ThrottleOptions } from './throttle.js';

export interface DeviceGuard {
  readonly throttle: CommKeyThrottle;
  /** Wrong keys allowed before the back-off starts. */
  readonly freeFailures: number;
  refused(reason: TrustRefusal): void;
}

export function createDeviceGuard(metrics: MetricsRegistry, clock: Clock, options: Partial<ThrottleOptions> = {}): DeviceGuard {
  const throttle = createCommKeyThrottle(options);
  const refusals = metrics.register(
    new Counter(
      'biogate_device_auth_refused_total',
      'Device requests refused by the trust check, by reason: network (allow-list), comm_key (wrong or missing key), throttled (refused unchecked after repeated wrong keys), token (registration token)',
    ),
  );
  metrics.register(
    new Gauge(
      'biogate_device_auth_throttled_serials',
      'Serial numbers whose comm key attempts are refused unchecked right now (this node)',
      () => [{ labels: {}, value: throttle.throttled(clock.now().getTime()) }],
    ),
  );
  return {
    throttle,
    freeFailures: options.freeFailures ?? THROTTLE_DEFAULTS.freeFailures,
    refused: (reason) => refusals.inc({ reason }),
  };
}
