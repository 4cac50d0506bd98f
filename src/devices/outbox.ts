/**
 * Commands out (`getrequest`): the next batch of a device's mailbox, rendered for its dialect at
 * dispatch time, bounded by count and bytes, REBOOT/UPGRADE last [PUSH-v2 §7.3], and claimed
 * atomically so two gateway nodes never send one command twice (DESIGN.md "Command delivery").
 */
import { codecOfDevice, type Codec, type QueuedLine } from '../../protocols/index.js';
import type { Command, Device, Location } from '../store/ports/index.js';
import type { Progress } from './progress.js';
import { render, type Rendered } from './render.js';
import { finishCommand, type ResultContext } from './results.js';
import { announcesClaim } from './lifecycle.js';
import { newMarker } from '../events/outbox.js';

/** What a rendered command leaves with it for its results. */
function progressFrom(r: Rendered): Progress | undefined {
  const p: Progress = {
    ...(r.note !== undefined ? { note: r.note } : {}),
    ...(r.keepPin !== undefined ? { keep_pin: r.keepPin } : {}),
    ...(r.keepWindow !== undefined ? { keep_window: r.keepWindow } : {}),
  };
  return Object.keys(p).length > 0 ? p : undefined;
}

/**
 * A batch claimed for one reply. Its commands are `sent` in the store, but announced only once the
 * reply reached the terminal (`lifecycle.delivered`); if it did not, `lifecycle.undelivered` puts
 * them back (a door unlock must not silently stay `sent` for a terminal that is gone).
 */
export interface Batch {
  readonly lines: readonly QueuedLine[];
  /** The records to announce as `sent` once the reply reached the terminal, under the claim's outbox marker. */
  readonly announce: readonly Command[];
  readonly marker: string;
  /** Every claimed id (child lines and composites included) and the claim's time, for putting them back. */
  readonly ids: readonly number[];
  readonly sentAt: string;
  /** The mailbox held nothing pending when it was read (the actor's pending hint). */
  readonly drained?: boolean;
}

/** The terminal and its location as a batch is rendered from. */
export interface RenderedFor {
  readonly device: Device | undefined;
  readonly location: Location | undefined;
}

export const EMPTY_BATCH: Batch = { lines: [], announce: [], marker: '', ids: [], sentAt: '' };
const DRAINED: Batch = { ...EMPTY_BATCH, drained: true };

/**
 * A sync op carries the user as stored when it leaves. It was rendered before the claim,
 * and a user change in between was merged into it (it was still pending: no new op was queued), so
 * the rendered lines could be older than the store. Now that the ops are ours (a change from here on
 * queues a new op), each is rendered again; one whose lines changed goes back to pending, out of this
 * batch, and leaves in the next one with what the store holds then.
 */
async function putBackStaleSyncOps(
  ctx: ResultContext,
  codec: Codec,
  device: Device,
  location: Location,
  pending: readonly Command[],
  won: Set<number>,
  renderedFor: ReadonlyMap<number, { lines: readonly string[]; ids: readonly number[] }>,
  sentAt: string,
): Promise<void> {
  const stale: number[] = [];
  for (const command of pending) {
    const before = renderedFor.get(command.id);
    if (command.origin !== 'sync' || !won.has(command.id) || !before) continue;
    const again = await render(ctx.store, codec, command, device, location, ctx.clock.now());
    const same =
      again.ok && again.rendered.lines.length === before.lines.length && again.rendered.lines.every((l, i) => l === before.lines[i]);
    if (!same) stale.push(...before.ids);
  }
  if (stale.length === 0) return;
  await ctx.lifecycle.undelivered(stale, sentAt);
  for (const id of stale) won.delete(id);
}

/**
 * `only`: the batch ends at the first pending command it refuses (the mailbox is read highest priority
 * first); with nothing taken the batch is empty but not drained (work is held back, not absent).
 */
export async function takeBatch(
  ctx: ResultContext,
  codec: Codec,
  read: () => Promise<RenderedFor>,
  only?: (command: Command) => boolean,
): Promise<Batch> {
  const { store, config } = ctx;
  const now = () => ctx.clock.now().toISOString();
  const all = await store.commands.pending(ctx.sn, config.batchMaxCommands);
  if (all.length === 0) return DRAINED;
  // Read after the mailbox: every command in it was queued after the write it carries (a door's settings, the
  // terminal's area, the location's scenario), so each is rendered from a state no older than itself. Read before,
  // a write landing in between rendered its command from the state it replaced.
  const { device, location } = await read();
  if (!device || !location || codecOfDevice(device).version !== codec.version) return EMPTY_BATCH;
  const cut = only ? all.findIndex((c) => !only(c)) : -1;
  // Each command's event so far is stored before its claim's (a `pending` queued on another node).
  const taken = cut === -1 ? all : all.slice(0, cut);
  const held = await ctx.lifecycle.announceOwed(taken);
  const pending = taken.filter((c) => !held.has(c.id) && !held.has(c.group_id ?? c.id));
  const lines: QueuedLine[] = [];
  const wire = new Map<number, string>();
  const extras = new Map<number, { progress?: Progress; fullAttlog?: boolean }>();
  /** Per command: the lines it was rendered to and the ids they carry (its own, then its children's). */
  const renderedFor = new Map<number, { lines: readonly string[]; ids: readonly number[] }>();
  let bytes = 0;
  for (const command of pending) {
    const r = await render(store, codec, command, device, location, ctx.clock.now());
    if (!r.ok) {
      await finishCommand(ctx, command, { status: 'failed', error_message: r.reason });
      continue;
    }
    const size = r.rendered.lines.reduce((n, l) => n + l.length + 16, 0);
    if (lines.length > 0 && (bytes + size > config.batchMaxBytes || lines.length + r.rendered.lines.length > config.batchMaxCommands))
      break;
    // [COMMANDS §1] the first line carries the command's id, each other line a child id.
    const ids = [command.id];
    for (let i = 1; i < r.rendered.lines.length; i++) {
      const child = await store.commands.create(
        {
          location_id: command.location_id,
          sn: ctx.sn,
          command: command.command,
          params: null,
          priority: command.priority,
          origin: command.origin,
          expires_at: null,
          parent_id: command.id,
        },
        now(),
      );
      ids.push(child.id);
    }
    r.rendered.lines.forEach((l, i) => {
      const id = ids[i] as number;
      lines.push({ id, wire: l });
      wire.set(id, l);
    });
    renderedFor.set(command.id, { lines: r.rendered.lines, ids });
    const progress = progressFrom(r.rendered);
    if (progress || r.rendered.requestFullAttlogUpload)
      extras.set(command.id, { ...(progress ? { progress } : {}), ...(r.rendered.requestFullAttlogUpload ? { fullAttlog: true } : {}) });
    bytes += size;
    if (r.rendered.lines.some((l) => codec.endsBatch(l))) break;
  }
  if (lines.length === 0) return EMPTY_BATCH;
  const sentAt = now();
  // The `sent` events are owed by the feed outbox from the claim on (src/events/outbox.ts).
  const marker = newMarker();
  const announced = new Set(pending.filter((c) => wire.has(c.id) && announcesClaim(c)).map((c) => c.id));
  const won = new Set(await store.commands.claim([...wire.keys()], wire, sentAt, { marker, ids: announced }));
  // Nothing but this unit wrote since the render (SQLite, no yield): the lines are the store's.
  if (!store.isolated()) await putBackStaleSyncOps(ctx, codec, device, location, pending, won, renderedFor, sentAt);
  const claimed: Command[] = [];
  for (const command of pending) {
    if (!won.has(command.id)) continue;
    const extra = extras.get(command.id);
    // The record as the claim left it: what was read, now sent (the claim writes nothing else). On
    // SQLite no writer comes between the read and the claim (one unit of work); on MongoDB a newer
    // change merged into a sync op meanwhile shows in the op's next event, not in this one.
    const sent: Command = { ...command, status: 'sent', sent_at: sentAt, wire: wire.get(command.id) ?? null, updated_at: sentAt };
    claimed.push((extra?.progress && (await store.commands.progress(command.id, { result: extra.progress }, sentAt))) || sent);
    if (extra?.fullAttlog) await ctx.updateDevice({ state: { ...device.state, attlogReupload: true } });
  }
  const { announce, ids } = await ctx.lifecycle.claimed(claimed, sentAt, marker);
  return { lines: lines.filter((l) => won.has(l.id as number)), announce, marker, ids: [...won, ...ids], sentAt };
}
