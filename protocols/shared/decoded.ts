// What a body decoder hands back: events plus the raw lines it had to reject.
import type { DeviceEvent, RecordSource } from '../events.js';

export interface Decoded {
  readonly events: DeviceEvent[];
  readonly rejected: string[];
}

/** Source of an upload, omitting an absent stamp (exactOptionalPropertyTypes). */
export function uploadSource(table: string, stamp?: string): RecordSource {
  return stamp === undefined ? { kind: 'upload', table } : { kind: 'upload', table, stamp };
}
