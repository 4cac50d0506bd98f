// Protocol generations BioGate speaks, and the one place their names are written (`src/` and the API
// schemas take them from here). A device that has not said which generation it speaks is treated as
// an attendance PUSH terminal [PUSH-v2 §1]; a terminal that registers speaks Security PUSH [PUSH-v3 §3].
import { Type } from 'typebox';
import type { ProtocolVersion } from './commands.js';

export const PROTOCOL_V2: ProtocolVersion = '2.0.0';
export const PROTOCOL_V3: ProtocolVersion = '3.0.0';
export const PROTOCOL_VERSIONS: readonly ProtocolVersion[] = [PROTOCOL_V2, PROTOCOL_V3];

/** JSON schema of a protocol version, for API bodies and views. */
export function protocolVersionSchema(options: { readonly description?: string } = {}) {
  return Type.Union([Type.Literal('2.0.0'), Type.Literal('3.0.0')], { title: 'ProtocolVersion', ...options });
}

/** What a device record says about its generation (an operator's override wins over what was detected). */
export interface VersionFacts {
  readonly version?: ProtocolVersion | null;
  readonly version_override?: ProtocolVersion | null;
}

/** The generation to speak to a device: its override, else what was detected, else attendance PUSH. */
export function effectiveVersion(device: VersionFacts | undefined): ProtocolVersion {
  return device?.version_override ?? device?.version ?? PROTOCOL_V2;
}

/** Per-generation values keyed by version, built from one function (no version literal at the call site). */
export function byVersion<T>(f: (version: ProtocolVersion) => T): Readonly<Record<ProtocolVersion, T>> {
  return { '2.0.0': f('2.0.0'), '3.0.0': f('3.0.0') };
}
