/**
 * Commands out (`getrequest`): the next batch of a device's mailbox, rendered for its dialect at
 * dispatch time, bounded by count and bytes, REBOOT/UPGRADE last [PUSH-v2 §7.3], and claimed
 * atomically so two gateway nodes never send one command twice (DESIGN.md "Command delivery").
 */
import type { Codec, QueuedLine } from '../../protocols/index.js';
import type { Device, Location } from '../store/types.js';
import type { Progress } from './progress.js';
import { render, type Rendered } from './render.js';
import { emitCommand, finishCommand, type ResultContext } from './results.js';

/** What a rendered command leaves with it for its results. */
function progressFrom(r: Rendered): Progress | undefined {
  const p: Progress = {
    ...(r.note !== undefined ? { note: r.note } : {}),
    ...(r.keepPin !== undefined ? { keep_pin: r.keepPin } : {}),
    ...(r.keepWindow !== undefined ? { keep_window: r.keepWindow } : {}),
  };
  return Object.keys(p).length > 0 ? p : undefined;
}

export async function takeBatch(ctx: ResultContext, codec: Codec, device: Device, location: Location): Promise<QueuedLine[]> {
  const { store, config } = ctx;
  const now = () => ctx.clock.now().toISOString();
  const pending = await store.commands.pending(ctx.sn, config.batchMaxCommands);
  const lines: QueuedLine[] = [];
  const wire = new Map<number, string>();
  const extras = new Map<number, { progress?: Progress; fullAttlog?: boolean }>();
  let bytes = 0;
  for (const command of pending) {
    const r = await render(store, codec, command, device, location, ctx.clock.now());
    if (!r.ok) {
      await finishCommand(ctx, command, { status: 'failed', error_message: r.reason });
      continue;
    }
    const size = r.rendered.lines.reduce((n, l) => n + l.length + 16, 0);
    if (lines.length > 0 && (bytes + size > config.batchMaxBytes || lines.length + r.rendered.lines.length > config.batchMaxCommands)) break;
    // [COMMANDS §1] the first line carries the command's id, each other line a child id.
    const ids = [command.id];
    for (let i = 1; i < r.rendered.lines.length; i++) {
      const child = await store.commands.create(
        { location_id: command.location_id, sn: ctx.sn, command: command.command, params: null, priority: command.priority, origin: command.origin, expires_at: null, parent_id: command.id },
        now(),
      );
      ids.push(child.id);
    }
    r.rendered.lines.forEach((l, i) => {
      const id = ids[i] as number;
      lines.push({ id, wire: l });
      wire.set(id, l);
    });
    const progress = progressFrom(r.rendered);
    if (progress || r.rendered.requestFullAttlogUpload) extras.set(command.id, { ...(progress ? { progress } : {}), ...(r.rendered.requestFullAttlogUpload ? { fullAttlog: true } : {}) });
    bytes += size;
    if (r.rendered.lines.some((l) => codec.endsBatch(l))) break;
  }
  if (lines.length === 0) return lines;
  const won = new Set(await store.commands.claim([...wire.keys()], wire, now()));
  for (const command of pending) {
    if (!won.has(command.id)) continue;
    const extra = extras.get(command.id);
    if (extra?.progress) await store.commands.progress(command.id, { result: extra.progress }, now());
    if (extra?.fullAttlog) await ctx.updateDevice({ state: { ...device.state, attlogReupload: true } });
    emitCommand(ctx, await store.commands.getById(command.id));
  }
  return lines.filter((l) => won.has(l.id as number));
}
