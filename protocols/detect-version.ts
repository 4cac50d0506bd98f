// [PUSH-v2 §10.3, COMMANDS §2.1] the command dialect of a device, decided from a handshake-class request
// (`options=all`, `/iclock/registry`, `/iclock/push`) and re-evaluated on every handshake.
import type { WireRequest } from './codec.js';
import type { ProtocolVersion } from './commands.js';
import { endpointOf, queryValue } from './shared/request.js';

/**
 * 1. administrator override; 2. `pushver` major ≥ 3 → v3, else v2; 3. `DeviceType=acc` or a request to
 * `/iclock/registry` / `/iclock/push` → v3; 4. v2. `PushVersion` / `FWVersion` are firmware strings and
 * are never used.
 */
export function detectVersion(request: WireRequest, override?: ProtocolVersion): ProtocolVersion {
  if (override !== undefined) return override;
  const pushver = queryValue(request.query, 'pushver')?.trim();
  const major = pushver === undefined ? Number.NaN : Number.parseInt(pushver, 10);
  if (Number.isInteger(major)) return major >= 3 ? '3.0.0' : '2.0.0';
  const deviceType = queryValue(request.query, 'DeviceType')?.trim().toLowerCase();
  const endpoint = endpointOf(request.path);
  if (deviceType === 'acc' || endpoint === 'registry' || endpoint === 'push') return '3.0.0';
  return '2.0.0';
}
