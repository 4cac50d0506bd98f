/**
 * Biometric templates written and read by integrators (issue #35 item 5): one slot at a time through the
 * API, and as NDJSON lines through `biogate templates export|import`. A slot is `(type, index)`: the wire's
 * biometric type [COMMANDS §3.9] and its number (`No`/`FID`: the finger 0–9, or the face or palm record),
 * with `template_index` for algorithms that keep several templates a number (v3 BIODATA `Index`).
 * A stored template reaches every terminal that holds its user, rendered at dispatch like an enrolled one
 * (src/devices/render.ts); a deleted slot is deleted on them (a `template.delete` sync op).
 * Template bytes never reach a log, an event or a webhook: only these endpoints and the export carry them.
 */
import { Type, type Static } from 'typebox';
import type { Clock } from '../clock.js';
import { BioGateError, invalid } from '../errors.js';
import { bioTypeOf } from '../devices/uploads.js';
import type { Location, Template, TemplateInput } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import type { SyncQueue } from '../sync/queue.js';
import { compiled, issuesFrom } from '../validation/schema.js';
import { Pin } from './schemas.js';

/** The biometric types BioGate knows [COMMANDS §3.9, PUSH-v2 §9.4], with the highest number each takes. */
export const TEMPLATE_KINDS: ReadonlyMap<number, { readonly name: string; readonly maxIndex: number }> = new Map([
  [1, { name: 'fingerprint', maxIndex: 9 }],
  [2, { name: 'near-infrared face', maxIndex: 11 }],
  [6, { name: 'palm print', maxIndex: 15 }],
  [7, { name: 'finger vein', maxIndex: 9 }],
  [8, { name: 'palm vein', maxIndex: 15 }],
  [9, { name: 'visible-light face', maxIndex: 15 }],
  [10, { name: 'visible-light palm', maxIndex: 15 }],
]);

/** Base64 characters of one template: far above any terminal's algorithm (a few KiB), far below a flood. */
export const TEMPLATE_MAX_CHARS = 65_536;
/** Templates one user may hold (ten fingers, twelve legacy face records, veins and palms fit). */
export const TEMPLATES_PER_USER = 64;

const BASE64 = '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$';

export const TemplateType = Type.Integer({
  minimum: 0,
  maximum: 255,
  description:
    'Biometric type (the BIODATA Type of the PUSH protocols): 1 fingerprint, 2 near-infrared face, 6 palm print, 7 finger vein, 8 palm vein, 9 visible-light face, 10 visible-light palm',
});
export const TemplateIndex = Type.Integer({
  minimum: 0,
  maximum: 255,
  description: 'The number within the type: finger 0–9 (device numbering), 0–11 for a near-infrared face record, else 0–15',
});

export const TemplateWrite = Type.Object(
  {
    major_ver: Type.Integer({ minimum: 0, maximum: 999, description: 'Algorithm major version (e.g. 10 or 12 for fingerprints)' }),
    minor_ver: Type.Integer({ minimum: 0, maximum: 999 }),
    format: Type.Integer({ minimum: 0, maximum: 255, description: 'Template format (0 ZK)' }),
    template: Type.String({ minLength: 4, maxLength: TEMPLATE_MAX_CHARS, pattern: BASE64, description: 'The template, base64' }),
    template_index: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 15, description: 'Part within the slot (v3 BIODATA Index); default 0' }),
    ),
    valid: Type.Optional(Type.Integer({ minimum: 0, maximum: 1, description: '1 usable (default), 0 stored but never sent' })),
    duress: Type.Optional(Type.Boolean({ description: 'A duress finger (default false)' })),
  },
  { description: 'Unknown fields are ignored, as in every body of the API' },
);
export type TemplateWrite = Static<typeof TemplateWrite>;

/** One line of an export: the slot, the user and the write's fields. */
export const TemplateLine = Type.Object({ pin: Pin, type: TemplateType, index: TemplateIndex, ...TemplateWrite.properties });
export type TemplateLine = Static<typeof TemplateLine>;

/** The slot refused by the kinds BioGate knows, as a 422 (at `where`: `['path']` for the API); undefined when it is one. */
function slotProblem(type: number, index: number, where: readonly string[]): BioGateError | undefined {
  const kind = TEMPLATE_KINDS.get(type);
  if (!kind)
    return invalid(
      [...where, 'type'],
      `biometric type ${type} is not one BioGate knows (${[...TEMPLATE_KINDS.keys()].join(', ')})`,
      'enum',
    );
  if (index > kind.maxIndex)
    return invalid([...where, 'index'], `a ${kind.name} template is numbered 0–${kind.maxIndex}, got ${index}`, 'less_than_equal');
  return undefined;
}

/** A write → the store's shape (written by the API: BIODATA form, no terminal of origin). */
export function templateInputOf(pin: number, type: number, index: number, w: TemplateWrite, where: readonly string[] = []): TemplateInput {
  const problem = slotProblem(type, index, where);
  if (problem) throw problem;
  return {
    user_pin: pin,
    bio_type: bioTypeOf(type),
    type_index: type,
    finger_id: index,
    template_index: w.template_index ?? 0,
    valid: w.valid ?? 1,
    duress: w.duress ?? false,
    major_ver: w.major_ver,
    minor_ver: w.minor_ver,
    format: w.format,
    source_format: 'biodata',
    data: w.template,
    size: w.template.length,
    source_sn: null,
  };
}

/** A stored template as an export line (and the API's read of it). */
export const templateLine = (t: Template): TemplateLine => ({
  pin: t.user_pin,
  type: t.type_index,
  index: t.finger_id,
  template_index: t.template_index,
  major_ver: t.major_ver,
  minor_ver: t.minor_ver,
  format: t.format,
  valid: t.valid,
  duress: t.duress,
  template: t.data,
});

export interface TemplateDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly sync: Pick<SyncQueue, 'queueUsers' | 'queueTemplateDelete'>;
}

async function requireUser(store: Store, location: Location, pin: number): Promise<void> {
  if (!(await store.users.get(location.id, pin))) throw new BioGateError('USER_NOT_FOUND', `No user with PIN ${pin} in this location`);
}

/**
 * Stores the template (replacing the slot's part) and, when it changed, queues the user's upsert to the
 * terminals that hold the user. `created`: the slot's part was new.
 */
export async function putTemplate(
  deps: TemplateDeps,
  location: Location,
  input: TemplateInput,
): Promise<{ template: Template; created: boolean }> {
  await requireUser(deps.store, location, input.user_pin);
  const held = await deps.store.templates.listForUser(location.id, input.user_pin);
  const replaces = held.some(
    (t) => t.type_index === input.type_index && t.finger_id === input.finger_id && t.template_index === input.template_index,
  );
  if (!replaces && held.length >= TEMPLATES_PER_USER)
    throw new BioGateError('QUOTA_EXCEEDED', `a user holds at most ${TEMPLATES_PER_USER} templates; delete one first`);
  const r = await deps.store.templates.upsert(location.id, input, deps.clock.now().toISOString());
  if (r.changed) await deps.sync.queueUsers(location.id, [input.user_pin], 'user.upsert', { heldOnly: true });
  return { template: r.template, created: r.created };
}

/** Deletes every part of the slot and queues its delete to the terminals that hold the user; 404 when it is empty. */
export async function deleteTemplate(deps: TemplateDeps, location: Location, pin: number, type: number, index: number): Promise<void> {
  await requireUser(deps.store, location, pin);
  const deleted = await deps.store.templates.deleteSlot(location.id, pin, type, index);
  if (deleted === 0) throw new BioGateError('TEMPLATE_NOT_FOUND', `User ${pin} has no template of type ${type} number ${index}`);
  await deps.sync.queueTemplateDelete(location.id, pin, type, index);
}

/** The user's templates, slot by slot; 404 for a PIN the location lacks. */
export async function listTemplates(store: Store, location: Location, pin: number): Promise<readonly Template[]> {
  await requireUser(store, location, pin);
  return store.templates.listForUser(location.id, pin);
}

export interface TemplateImportLine {
  /** 1-based line of the file. */
  readonly line: number;
  readonly text: string;
}

export interface TemplateImportOutcome {
  readonly written: number;
  /** Lines whose template was already stored as it is. */
  readonly unchanged: number;
  readonly errors: readonly { readonly line: number; readonly error: string }[];
  /** Users whose templates changed: their upserts are queued to the terminals that hold them. */
  readonly users: number;
}

const describe = (err: unknown): string => {
  if (!(err instanceof BioGateError)) return (err as Error).message;
  return typeof err.detail === 'string' ? err.detail : err.detail.map((i) => `${i.loc.join('.') || 'line'}: ${i.msg}`).join('; ');
};

/**
 * NDJSON lines (one TemplateLine each) into the location: every line is parsed and checked (schema, kind,
 * user of this location, the per-user limit) before anything is written; a bad line is reported with its
 * number and skipped, each good one is one atomic upsert. Then one upsert per changed user is queued.
 */
export async function importTemplates(
  deps: TemplateDeps,
  location: Location,
  lines: readonly TemplateImportLine[],
): Promise<TemplateImportOutcome> {
  const validator = compiled(TemplateLine);
  const errors: { line: number; error: string }[] = [];
  const good: { line: number; input: TemplateInput }[] = [];
  for (const { line, text } of lines) {
    try {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        throw new Error(`not JSON: ${(err as Error).message}`);
      }
      const issues = issuesFrom(validator, value, []);
      if (issues.length > 0) throw new BioGateError('VALIDATION_FAILED', issues);
      const { pin, type, index, ...write } = value as TemplateLine;
      good.push({ line, input: templateInputOf(pin, type, index, write) });
    } catch (err) {
      errors.push({ line, error: describe(err) });
    }
  }
  const pins = [...new Set(good.map((g) => g.input.user_pin))];
  const known = new Set((await deps.store.users.getMany(location.id, pins)).map((u) => u.pin));
  const slots = new Map<number, Set<string>>();
  for (const t of await deps.store.templates.listForUsers(
    location.id,
    pins.filter((p) => known.has(p)),
  ))
    slotsOf(slots, t.user_pin).add(slotKey(t));
  const changed = new Set<number>();
  let written = 0;
  let unchanged = 0;
  const now = deps.clock.now().toISOString();
  for (const { line, input } of good) {
    if (!known.has(input.user_pin)) {
      errors.push({ line, error: `no user with PIN ${input.user_pin} in location ${location.id}` });
      continue;
    }
    const held = slotsOf(slots, input.user_pin);
    if (!held.has(slotKey(input)) && held.size >= TEMPLATES_PER_USER) {
      errors.push({ line, error: `user ${input.user_pin} would hold more than ${TEMPLATES_PER_USER} templates` });
      continue;
    }
    held.add(slotKey(input));
    const r = await deps.store.templates.upsert(location.id, input, now);
    if (r.changed) {
      written++;
      changed.add(input.user_pin);
    } else unchanged++;
  }
  if (changed.size > 0) await deps.sync.queueUsers(location.id, [...changed], 'user.upsert', { heldOnly: true });
  errors.sort((a, b) => a.line - b.line);
  return { written, unchanged, errors, users: changed.size };
}

const slotKey = (t: Pick<TemplateInput, 'type_index' | 'finger_id' | 'template_index'>) =>
  `${t.type_index}:${t.finger_id}:${t.template_index}`;

function slotsOf(map: Map<number, Set<string>>, pin: number): Set<string> {
  let set = map.get(pin);
  if (!set) map.set(pin, (set = new Set()));
  return set;
}
