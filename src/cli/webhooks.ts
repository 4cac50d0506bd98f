/**
 * `biogate webhook list|create|delete`: the same store writes and checks as
 * /api/webhooks (URL policy from BIOGATE_WEBHOOK_ALLOW_HTTP / _PRIVATE, event names, the limit per
 * location); the running server's delivery job picks new subscriptions up on its next pass.
 */
import { webhookView } from '../views/webhook.js';
import { MAX_WEBHOOKS_PER_LOCATION, subscribe } from '../webhooks/subscriptions.js';
import { systemClock } from '../clock.js';
import { BioGateError } from '../errors.js';
import { FEED_EVENT_TYPES } from '../events/types.js';
import type { Store } from '../store/types.js';
import type { Location } from '../store/ports/index.js';
import { resolvedProblem, urlProblem } from '../webhooks/address-guard.js';
import { UsageError, type Flags } from './args.js';
import { json, print, withStore, type CliIo } from './io.js';

async function locationOf(store: Store, f: Flags): Promise<Location> {
  const id = f.int('location', { required: true, min: 1 }) as number;
  const location = await store.locations.get(id);
  if (!location) throw new BioGateError('LOCATION_NOT_FOUND', `Location ${id} not found`);
  return location;
}

export async function webhookList(f: Flags, io: CliIo): Promise<number> {
  return withStore(io, async (store) => {
    const location = await locationOf(store, f);
    const views = (await store.webhooks.list(location.id)).map((w) => webhookView(w, 'full'));
    if (f.flag('json')) print(io, json(views));
    else if (views.length === 0) print(io, `No webhooks in location ${location.id}.`);
    else
      for (const w of views)
        print(
          io,
          `${w.id}\t${w.enabled ? 'enabled ' : 'disabled'}\t${w.url}\t${w.events.join(',')}${w.disabled_reason ? `\t(${w.disabled_reason})` : ''}`,
        );
    return 0;
  });
}

export async function webhookCreate(f: Flags, io: CliIo): Promise<number> {
  const url = f.string('url', true) as string;
  const events = (f.string('events', true) as string)
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  const unknown = events.filter((e) => !(FEED_EVENT_TYPES as readonly string[]).includes(e));
  if (events.length === 0 || unknown.length > 0)
    throw new UsageError(
      `--events: a comma-separated list of ${FEED_EVENT_TYPES.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
    );
  const batch = f.int('batch', { min: 1, max: 500 }) ?? 1;
  const description = f.string('description') ?? null;
  if (description !== null && description.length > 500) throw new UsageError('--description must be at most 500 characters');
  return withStore(io, async (store, config) => {
    const location = await locationOf(store, f);
    const policy = { allowHttp: config.webhookAllowHttp === 'on', allowPrivate: config.webhookAllowPrivate === 'on' };
    const problem = urlProblem(url, policy) ?? (await resolvedProblem(url, policy));
    if (problem) throw new BioGateError('VALIDATION_FAILED', `--url ${problem}`);
    if ((await store.webhooks.count(location.id)) >= MAX_WEBHOOKS_PER_LOCATION)
      throw new BioGateError('VALIDATION_FAILED', `a location has at most ${MAX_WEBHOOKS_PER_LOCATION} webhooks`);
    const { subscription: w, secret } = await subscribe(
      store,
      location.id,
      { url, events: [...new Set(events)], description, attendance_batch: batch },
      systemClock.now().toISOString(),
    );
    if (f.flag('json')) print(io, json({ ...webhookView(w, 'full'), secret }));
    else
      print(
        io,
        `Created webhook ${w.id} for location ${location.id}.\nIts signing secret is shown once, now; store it safely:\n\n  ${secret}\n`,
      );
    return 0;
  });
}

export async function webhookDelete(f: Flags, io: CliIo): Promise<number> {
  const id = f.int('id', { required: true, min: 1 }) as number;
  return withStore(io, async (store) => {
    const location = await locationOf(store, f);
    if (!(await store.webhooks.delete(location.id, id)))
      throw new BioGateError('WEBHOOK_NOT_FOUND', `No webhook ${id} in location ${location.id}`);
    print(io, `Deleted webhook ${id}.`);
    return 0;
  });
}
