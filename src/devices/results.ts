/**
 * Command results in (`devicecmd`): matched by id only [PUSH-v2 §8.4], capability learning
 * [COMMANDS §2.6], the automatic fallbacks [COMMANDS §2.5], and completion of multi-line commands
 * once every line has answered. Partial outcomes are persisted as progress (./progress.ts), so an
 * actor evicted or a gateway restarted between two lines loses nothing.
 */
import { CHECK_ATTENDANCE_BOTH_FORMATS_FAILED, type Codec, type CommandResult, type UserRecord } from '../../protocols/index.js';
import type { PresetId } from '../../protocols/catalog.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { type Store } from '../store/types.js';
import { ATTEMPT_SUPERSEDED, type Command, type CommandOutcome, type Device, type DeviceSessionPatch } from '../store/ports/index.js';
import { learn, learnedRefusal } from './capabilities.js';
import { ACCESS_AUDIT_COMMAND } from './render.js';
import type { EventBus } from '../events/bus.js';
import type { CommandLifecycle } from './lifecycle.js';
import { finalExtras, progressOf, type AccessTablesHeld, type Progress } from './progress.js';
import type { RuntimeConfig } from './runtime-config.js';
import { sanitizeOptions } from './session.js';
import { refusalBackoffMs } from './sweeps.js';

export interface ResultContext {
  readonly sn: string;
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly log: Logger;
  readonly config: RuntimeConfig;
  readonly lifecycle: CommandLifecycle;
  /** A result for a command this device was not sent (counted in metrics). */
  readonly onStrayResult: () => void;
  readonly device: () => Promise<Device | undefined>;
  /** Persists a device patch and announces it. */
  readonly updateDevice: (patch: DeviceSessionPatch) => Promise<Device | undefined>;
  /**
   * The terminal refused a line of a roster sync op (negative return code): the op stays owed and is
   * sent again with back-off (sweeps.ts); the terminal is in drift with the code and text meanwhile.
   */
  readonly onSyncRefused: (sn: string, command: Command, code: number, message: string) => Promise<void>;
  /** The users a device reported for an audit or a sync-users query (load-users of origin 'system'). */
  readonly onDeviceUsers: (locationId: number, sn: string, users: readonly UserRecord[], groupId: number | null) => Promise<void>;
  /** An access audit's answer: the terminal's access tables (sync/audit.ts compares and repairs). */
  readonly onAccessTables: (locationId: number, sn: string, held: AccessTablesHeld) => Promise<void>;
}

const now = (ctx: ResultContext) => ctx.clock.now().toISOString();
/** An access audit whose three tables answered no row at all. */
const NOTHING_HELD: AccessTablesHeld = { rights: [] };

/** A roster sync op: nothing owed is dropped while the terminal stays assigned (issue #31). */
const isUserSyncOp = (c: Command) => c.origin === 'sync' && c.command === 'sync-users';

export async function finishCommand(ctx: ResultContext, command: Command, outcome: CommandOutcome): Promise<void> {
  await ctx.lifecycle.finish(command, outcome);
}

/** Finishes a command a result answered: only the attempt that was answered (not one re-queued meanwhile). */
const finishAnswered = (ctx: ResultContext, command: Command, outcome: CommandOutcome) =>
  ctx.lifecycle.finish(command, outcome, { sameAttempt: true }).then(() => undefined);

/** Merges into the progress of a sent command (no-op once it is final). */
export async function addProgress(ctx: ResultContext, id: number, change: (p: Progress) => Progress, response?: string): Promise<void> {
  const command = await ctx.store.commands.getById(id);
  if (command) await mergeProgress(ctx, command, change, response);
}

/** addProgress for a command just read in this unit of work (no second read). */
async function mergeProgress(ctx: ResultContext, command: Command, change: (p: Progress) => Progress, response?: string): Promise<void> {
  if (command.status !== 'sent' || command.sn !== ctx.sn) return;
  await ctx.store.commands.progress(
    command.id,
    { result: change(progressOf(command)), ...(response !== undefined ? { response } : {}) },
    now(ctx),
  );
}

/** [COMMANDS §2.6] what the answer to `line` teaches; persisted on the device. */
async function learnFrom(ctx: ResultContext, codec: Codec, line: string | null, code: number): Promise<void> {
  if (line === null) return;
  const device = await ctx.device();
  if (!device) return;
  const state = learn(device.state, codec.capabilityKey(line), codec.classifyReturn(code), code);
  if (state !== device.state) await ctx.updateDevice({ state });
}

/**
 * [PUSH-v2 §8.4] results are matched by ID only. Only a command sent to this very device can be
 * answered: a result for one still pending (never delivered), another serial's, a finished one or
 * an unknown id is logged, counted and ignored, so knowing a serial number is not enough to mark a
 * queued door command or user delete done.
 */
export async function applyResult(ctx: ResultContext, codec: Codec, result: CommandResult): Promise<void> {
  const id = Number(result.id);
  const command = Number.isSafeInteger(id) ? await ctx.store.commands.getById(id) : undefined;
  if (!command || command.sn !== ctx.sn || command.status !== 'sent') {
    ctx.onStrayResult();
    ctx.log.info(
      { id: String(result.id).slice(0, 32), returnCode: result.returnCode, status: command?.sn === ctx.sn ? command.status : 'unknown' },
      'result for a command not sent to this device ignored',
    );
    return;
  }
  await learnFrom(ctx, codec, command.wire, result.returnCode);
  if (command.parent_id !== null) {
    const outcome = codec.outcome(result.returnCode);
    // A line keeps what its answer brought before its result (an access audit's door options, complete below).
    const progress = progressOf(command);
    const kept = Object.keys(progress).length > 0 ? { result: progress } : {};
    await ctx.store.commands.finish(
      command.id,
      outcome.status === 'failed'
        ? { status: 'failed', error_message: outcome.message, response: result.raw, ...kept }
        : { status: 'success', response: result.raw, ...kept },
      now(ctx),
    );
    const head = await ctx.store.commands.getById(command.parent_id);
    if (head && outcome.status === 'failed' && isUserSyncOp(head))
      await ctx.onSyncRefused(ctx.sn, head, result.returnCode, outcome.message);
    const headResult = head && progressOf(head).head;
    // Re-queued meanwhile (another node's sweep): this attempt is over, the next one decides.
    if (head && headResult && head.status === 'sent') await completeIfDone(ctx, codec, head, headResult);
    return;
  }
  if (await fellBack(ctx, codec, command, result.returnCode)) return;
  const head = { return_code: result.returnCode, raw: result.raw };
  const done = await completeIfDone(ctx, codec, command, head, result);
  // Lines still outstanding: keep the first line's answer with the command until they arrive.
  if (!done) await mergeProgress(ctx, command, (p) => ({ ...p, head }), result.raw);
}

/** [COMMANDS §2.5] the one automatic fallback of a preset, tried once: sent again with other wire lines. */
async function fellBack(ctx: ResultContext, codec: Codec, command: Command, code: number): Promise<boolean> {
  if (command.origin === 'sync' || command.attempts > 0) return false;
  const fallback = codec.presetFallback({ preset: command.command as PresetId, params: command.params ?? {} }, code);
  if (!fallback) return false;
  // The API shows that a fallback answered: its own note, else what was refused and what went instead.
  const note =
    fallback.note ?? `device returned ${code} for ${command.wire ?? command.command}; sent ${fallback.lines.join(' / ')} instead`;
  await addProgress(ctx, command.id, (p) => ({ ...p, note }));
  if (fallback.requestFullAttlogUpload) {
    const device = await ctx.device();
    await ctx.updateDevice({ state: { ...device?.state, attlogReupload: true } });
  }
  const again = await ctx.lifecycle.retry(command, fallback.lines.join('\n'));
  if (!again) return false;
  ctx.log.info({ id: command.id, returnCode: code, fallback: fallback.lines[0] }, 'command answered with a refusal: trying its fallback');
  return true;
}

/**
 * A line of a roster sync op refused in an earlier attempt: answered before this attempt was sent
 * (the op goes again only after its back-off, sweeps.ts), so it neither blocks nor decides this one.
 */
const refusedEarlier = (head: Command, line: Command) =>
  isUserSyncOp(head) && line.status === 'failed' && line.updated_at !== null && head.sent_at !== null && line.updated_at < head.sent_at;

/**
 * Finishes `head` when none of its lines is outstanding; returns whether it did. Lines of an earlier
 * attempt (re-queued, or sent to a terminal that never got them) were superseded: they neither
 * block nor decide this attempt.
 */
async function completeIfDone(
  ctx: ResultContext,
  codec: Codec,
  head: Command,
  first: NonNullable<Progress['head']>,
  result?: CommandResult,
): Promise<boolean> {
  const children = (await ctx.store.commands.children(head.id)).filter(
    (c) => c.error_message !== ATTEMPT_SUPERSEDED && !refusedEarlier(head, c),
  );
  if (children.some((c) => c.status === 'sent' || c.status === 'pending')) return false;
  await complete(ctx, codec, head, first, children, result);
  return true;
}

async function complete(
  ctx: ResultContext,
  codec: Codec,
  head: Command,
  first: NonNullable<Progress['head']>,
  children: readonly Command[],
  result?: CommandResult,
): Promise<void> {
  const preset = head.origin === 'sync' ? undefined : (head.command as PresetId);
  const progress = progressOf(head);
  const outcome = codec.outcome(first.return_code, preset);
  if (outcome.status === 'pending') return;
  const failedChild = children.find((c) => c.status === 'failed');
  const response = [first.raw, ...children.map((c) => c.response ?? '')].filter(Boolean).join('\n');
  let data: Record<string, unknown> | null = null;
  if (preset === 'info') {
    const options = result?.options ? sanitizeOptions(result.options.values) : progress.options;
    if (options) {
      await ctx.updateDevice({ options });
      data = { ...options };
    }
  } else if (head.origin === 'system' && head.command === ACCESS_AUDIT_COMMAND) {
    if (head.location_id !== null && outcome.status === 'success' && progress.access_overflow !== true) {
      // Lines 2 and 3 read `timezone` and `holiday`, line 4 (when any door has settings) the doors' options:
      // a table the terminal refused is not compared.
      const { rights, timezones = [], holidays = [] } = progress.access ?? NOTHING_HELD;
      const read = (line: number) => children[line]?.status === 'success';
      // A finished line keeps its progress as its result (applyResult; progressOf reads only a sent command's).
      const line4 = read(2) ? (children[2]?.result as Progress | null | undefined) : undefined;
      const doorOptions = line4?.options;
      await ctx.onAccessTables(head.location_id, ctx.sn, {
        rights,
        ...(read(0) ? { timezones } : {}),
        ...(read(1) ? { holidays } : {}),
        ...(doorOptions ? { doorOptions } : {}),
      });
    }
  } else if (preset === 'load-users') {
    data = await loadUsersResult(ctx, head, progress.users ?? [], progress.keep_pin);
    if (head.origin === 'system' && head.location_id !== null && outcome.status === 'success') {
      // Compared with the roster (sync/audit.ts); the repairs join the query's group: sync-users is done when they are.
      await ctx.onDeviceUsers(head.location_id, ctx.sn, progress.users ?? [], head.group_id);
    }
  }
  const extras = finalExtras(progress);
  const resultData = Object.keys(extras).length > 0 ? { ...data, ...extras } : data;
  if (outcome.status === 'failed' && isUserSyncOp(head)) {
    await ctx.onSyncRefused(ctx.sn, head, first.return_code, outcome.message);
    return keepOwed(ctx, head, first.return_code, outcome.message, response);
  }
  if (outcome.status === 'failed') {
    // [COMMANDS §4.17] the T-format retry answered −1 as well.
    const message =
      preset === 'check-attendance' && head.attempts > 0 && first.return_code === -1
        ? CHECK_ATTENDANCE_BOTH_FORMATS_FAILED
        : outcome.message;
    return finishAnswered(ctx, head, { status: 'failed', error_message: message, response, result: resultData });
  }
  if (failedChild) {
    // A sync op whose line the device just refused as unsupported goes again: the next render
    // takes the fallback form or skips that line with its reason (render.ts) [COMMANDS §2.5].
    const device = await ctx.device();
    const refused = failedChild.wire !== null && learnedRefusal(device?.state ?? null, codec.capabilityKey(failedChild.wire)) !== undefined;
    if (head.origin === 'sync' && refused && head.attempts < ctx.config.syncRetries) {
      if (await ctx.lifecycle.requeue(head)) return;
    }
    // The refusal was recorded when the line answered (applyResult).
    if (isUserSyncOp(head)) return keepOwed(ctx, head, null, failedChild.error_message ?? 'failed', response);
    return finishAnswered(ctx, head, {
      status: 'failed',
      error_message: `line ${failedChild.id}: ${failedChild.error_message ?? 'failed'}`,
      response,
      result: resultData,
    });
  }
  return finishAnswered(ctx, head, { status: 'success', response, result: resultData });
}

/**
 * A refused roster sync op stays `sent` (the terminal has it, unconfirmed) with the refusal in its
 * progress, and is sent again however often it is refused: after refusalBackoffMs (this node's
 * timer, for this attempt only), or by the sweep once its back-off passed should this node stop.
 */
async function keepOwed(ctx: ResultContext, head: Command, code: number | null, message: string, response: string): Promise<void> {
  const refused = { ...(code !== null ? { code } : {}), message, at: now(ctx) };
  await mergeProgress(ctx, head, (p) => ({ ...p, refused }), response);
  const again = setTimeout(
    () => {
      ctx.lifecycle
        .requeue(head, { sameAttempt: true })
        .catch((err: unknown) => ctx.log.warn({ err, id: head.id }, 'sending a refused sync line again failed; the sweep retries'));
    },
    refusalBackoffMs(ctx.config, head.attempts),
  );
  again.unref();
}

/**
 * [API-CONTRACT §5] load-users → `{users, unknown_pins}`: what the device holds, and which PINs the
 * location does not know. On a device moved from another location, that location's users (still
 * there until their deletes run) are left out: nothing of theirs becomes visible here.
 * A sync-users audit still acts on all of them (complete() passes the full list to onDeviceUsers).
 */
async function loadUsersResult(ctx: ResultContext, head: Command, all: readonly UserRecord[], keepPin: string | undefined) {
  // A query of BioGate's own (an audit, sync-users) on any terminal, or any query on a moved one: users
  // BioGate synced for another location stay out of this location's view.
  const moved = head.location_id !== null && (head.origin === 'system' || (await ctx.device())?.state?.movedAt !== undefined);
  const others = moved
    ? new Set((await ctx.store.commands.syncedPinsElsewhere(ctx.sn, head.location_id ?? -1, true)).map(String))
    : undefined;
  const users = others ? all.filter((u) => !others.has(String(Number(u.pin)))) : all;
  const wanted = keepPin ?? (head.params?.['pin'] == null ? undefined : String(head.params['pin']));
  const list = wanted === undefined ? users : users.filter((u) => u.pin === wanted);
  const numeric = list
    .map((u) => u.pin)
    .filter((p) => /^\d{1,8}$/.test(p))
    .map(Number);
  const known = new Set((await ctx.store.users.getMany(head.location_id ?? -1, numeric)).map((u) => String(u.pin)));
  return {
    users: list.map((u) => ({ pin: u.pin, name: u.name, privilege: u.privilege, card_no: u.cardNo || null, group: u.group })),
    unknown_pins: list.map((u) => u.pin).filter((p) => !/^\d{1,8}$/.test(p) || !known.has(String(Number(p)))),
  };
}
