/**
 * Per-device IP allow-lists (README "Security model"). The CIDR parsing and matching is shared
 * with the trusted-proxy list and lives in src/net/cidr.ts.
 */
export { addressBytes, canonicalCidr, inNetworks } from '../net/cidr.js';

export const MAX_ALLOWED_NETWORKS = 32;
