/**
 * The command presets the device page offers as buttons. What a preset is (its protocol versions, the
 * token scopes that may queue it, whether it is risky, its parameters and their defaults) is the OpenAPI
 * document's `x-presets`, generated at build into ./generated/presets.ts; the console adds only which
 * presets get a button, in what order, and the words on it.
 *
 * Taken at build, not fetched from /api/openapi.json when the page opens: the console is bundled by the
 * same build as the server that serves it, so the two cannot disagree; the page shows its buttons without
 * a further request, a loading state or a failure of its own; and `tsc` checks the ids below against the
 * catalog, so a preset the catalog drops or renames fails the build instead of a click.
 */
import type { Scope } from './api-types.js';
import { PRESETS } from './generated/presets.js';
import { t } from './i18n/index.js';

type Described = (typeof PRESETS)[number];
export type PresetId = Described['id'];

export interface Preset {
  readonly id: PresetId;
  /** The button's text, in the console's current language (read when rendered). */
  readonly label: string;
  /** Protocol versions the preset has a wire form in; a device of another version cannot run it. */
  readonly versions: readonly string[];
  /** Token scopes that may queue it (API-CONTRACT §4). */
  readonly scopes: readonly Scope[];
  /** Risky presets: a `full` token only, and a typed confirmation before it is queued. */
  readonly risky: boolean;
  /** What is sent as `params`: each parameter's default; undefined for a preset without parameters. */
  readonly params: Readonly<Record<string, unknown>> | undefined;
}

/** The device page's buttons, in order; each one's text is the message `presets.<id>` (i18n/en/terminal.ts). */
const BUTTONS = [
  'door-open',
  'door-unlock',
  'reboot',
  'info',
  'sync-users',
  'clear-log',
  'clear-biodata',
  'clear-data',
] as const satisfies readonly PresetId[];

function described(id: PresetId): Described {
  const found = PRESETS.find((p) => p.id === id);
  if (!found) throw new Error(`preset ${id} is not in x-presets`);
  return found;
}

export const DEVICE_PRESETS: readonly Preset[] = BUTTONS.map((id) => {
  const p = described(id);
  const message = `presets.${id}` as const;
  return {
    id,
    get label() {
      return t(message);
    },
    versions: p.protocol_versions,
    scopes: p.scope,
    risky: p.risk === 'risky',
    params: p.has_params ? p.defaults : undefined,
  };
});

/** The buttons a token of this scope may use: operators never see what they may not queue; read tokens queue nothing. */
export const presetsFor = (scope: Scope): readonly Preset[] => DEVICE_PRESETS.filter((p) => p.scopes.includes(scope));
