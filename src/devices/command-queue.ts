/**
 * Queueing a preset command for a device: catalog lookup (aliases, the two
 * `custom` forms), params validated with catalog defaults, scope, tenancy,
 * protocol-version support, mailbox bound, idempotency [API-CONTRACT §5 Commands].
 * Used by the REST API and by the MQTT request topic.
 */
import { isIP } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { CATALOG, defaultExpirySeconds, findPreset, type PresetSpec } from '../../protocols/catalog.js';
import type { Clock } from '../clock.js';
import { BioGateError, invalid } from '../errors.js';
import type { Store } from '../store/types.js';
import type { Command, Location, Token } from '../store/ports/index.js';
import { hostOf, isPublicAddress } from '../net/address-guard.js';
import { compiled, issuesFrom } from '../validation/schema.js';
import { codecFor } from '../../protocols/index.js';
import type { EventBus } from '../events/bus.js';
import type { CommandLifecycle } from './lifecycle.js';
import { render } from './render.js';

export interface QueueRequest {
  readonly location: Location;
  readonly token: Pick<Token, 'id' | 'scope'> | null;
  readonly sn: string;
  readonly command: string;
  readonly priority: number;
  readonly params: Record<string, unknown> | null | undefined;
  readonly expires_in?: number | undefined;
  readonly idempotencyKey?: string | undefined;
  /** Where the request's fields sit, for 422 locations: ['body'] for the API. */
  readonly root: readonly string[];
  /** A child of a location-wide command (src/commands/fan-out.ts): a member of that parent's group. */
  readonly groupId?: number | undefined;
  /** An emergency scenario's command (src/commands/scenarios.ts): not held back by the mailbox bound. */
  readonly urgent?: boolean | undefined;
}

export interface CommandQueueDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly lifecycle: CommandLifecycle;
  readonly mailboxLimit: number;
  /** firmware-upgrade may name a loopback, link-local or private host (BIOGATE_FIRMWARE_ALLOW_PRIVATE=on). */
  readonly firmwareAllowPrivate: boolean;
  /** sync-users expands into per-user sync ops, members of its group. */
  readonly queueRoster: (locationId: number, sn: string, options: { groupId: number }) => Promise<{ commands: number }>;
}

const LOOKS_LIKE_ID = /^[a-z0-9-]+$/;
const VALID_IDS = CATALOG.flatMap((p) => [p.id, ...p.aliases]).join(', ');

/** Resolves the command field to a preset and its raw params (the sample's `custom` form puts the raw string in `command`). */
function resolve(req: QueueRequest): { spec: PresetSpec; params: unknown } {
  const spec = findPreset(req.command);
  if (spec) return { spec, params: req.params ?? {} };
  const loc = [...req.root, 'command'];
  if (LOOKS_LIKE_ID.test(req.command)) throw invalid(loc, `unknown command "${req.command}"; valid commands: ${VALID_IDS}`, 'enum');
  if (/[\r\n\0]/.test(req.command)) throw invalid(loc, 'a raw command must be one line: no CR, LF or NUL', 'value_error');
  if (req.params !== null && req.params !== undefined && Object.keys(req.params).length > 0) {
    throw invalid([...req.root, 'params'], 'a raw command in the command field takes no params', 'value_error');
  }
  return { spec: findPreset('custom') as PresetSpec, params: { command: req.command } };
}

function checkParams(spec: PresetSpec, raw: unknown, root: readonly string[]): Record<string, unknown> {
  const loc = [...root, 'params'];
  if (!spec.hasParams) {
    if (raw !== null && typeof raw === 'object' && Object.keys(raw).length === 0) return {};
    throw invalid(loc, `${spec.id} takes no params`, 'value_error');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalid(loc, 'must be an object', 'type_error');
  const v = compiled(spec.params);
  const withDefaults = v.Default(structuredClone(raw)) as Record<string, unknown>;
  const issues = issuesFrom(v, withDefaults, loc);
  if (issues.length > 0) throw new BioGateError('VALIDATION_FAILED', issues);
  return withDefaults;
}

/**
 * firmware-upgrade: BioGate downloads the URL itself (devices/firmware.ts), so the URL must parse and a
 * literal non-public host is refused here (422) unless allowed; names are judged on their address when
 * downloading.
 */
function checkFirmwareUrl(params: Record<string, unknown>, root: readonly string[], allowPrivate: boolean): void {
  const loc = [...root, 'params', 'url'];
  let url: URL;
  try {
    url = new URL(params['url'] as string);
  } catch {
    throw invalid(loc, 'must be an absolute https:// URL', 'value_error');
  }
  const host = hostOf(url);
  if (!allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) {
    throw invalid(
      loc,
      `the host ${host} is a loopback, link-local or private address; BioGate does not download firmware from it (allowed only with BIOGATE_FIRMWARE_ALLOW_PRIVATE=on)`,
      'value_error',
    );
  }
}

export function createCommandQueue(deps: CommandQueueDeps) {
  const { store, clock, bus, lifecycle } = deps;

  async function preconditions(req: QueueRequest, spec: PresetSpec, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const locationId = req.location.id;
    if (spec.id === 'enroll-biometric') {
      const user = await store.users.get(locationId, params['pin'] as number);
      if (!user) throw invalid([...req.root, 'params', 'pin'], `no user with pin ${String(params['pin'])} in this location`, 'value_error');
      if (user.id !== params['user_id'])
        throw invalid(
          [...req.root, 'params', 'user_id'],
          `user_id ${String(params['user_id'])} is not the user with pin ${user.pin} (id ${user.id})`,
          'value_error',
        );
    }
    if (spec.id === 'load-users' && params['pin'] == null && params['user_id'] != null) {
      const user = await store.users.getById(locationId, params['user_id'] as number);
      if (!user)
        throw invalid([...req.root, 'params', 'user_id'], `no user with id ${String(params['user_id'])} in this location`, 'value_error');
      return { ...params, pin: user.pin };
    }
    return params;
  }

  /**
   * sync-users: the roster goes out as per-user ops of the record's group, after a load-users audit
   * whose answer removes the users the location does not hold [API-CONTRACT §6] (results.ts). The
   * record stays pending until the first op is delivered, then sent, and ends success only when
   * every op (and the audit, and the deletes it caused) was acknowledged by the terminal; failed
   * with a summary if any failed (lifecycle.settleGroup). `result` carries the counts.
   */
  async function queueSyncUsers(req: QueueRequest, command: Command, now: Date): Promise<Command> {
    const expires_at = new Date(now.getTime() + SYNC_USERS_EXPIRY_S * 1000).toISOString();
    const audit = await lifecycle.create(
      {
        location_id: req.location.id,
        sn: req.sn,
        command: 'load-users',
        params: { user_id: null, pin: null },
        priority: req.priority,
        origin: 'system',
        expires_at,
        group_id: command.id,
      },
      now.toISOString(),
    );
    const { commands } = await deps.queueRoster(req.location.id, req.sn, { groupId: command.id });
    const progress = { queued: commands + 1, load_users_id: audit.id };
    return (await store.commands.progress(command.id, { result: progress }, now.toISOString())) ?? command;
  }

  /** The checks that do not depend on the terminal: preset, params (defaults filled in), URL policy, scope. */
  function checked(req: QueueRequest): { spec: PresetSpec; params: Record<string, unknown> } {
    const { spec, params: rawParams } = resolve(req);
    const params = checkParams(spec, rawParams, req.root);
    if (spec.id === 'firmware-upgrade') checkFirmwareUrl(params, req.root, deps.firmwareAllowPrivate);
    if (spec.risk === 'risky' && req.token && req.token.scope !== 'full') {
      throw new BioGateError('SCOPE_DENIED', `${spec.id} needs a token with the full scope`);
    }
    return { spec, params };
  }

  return {
    /** A request checked as queue() checks it before looking at a terminal: the preset id and the params to store. */
    async check(req: QueueRequest): Promise<{ command: string; params: Record<string, unknown> | null }> {
      const { spec, params } = checked(req);
      const finalParams = await preconditions(req, spec, params);
      return { command: spec.id, params: Object.keys(finalParams).length > 0 ? finalParams : null };
    },
    async queue(req: QueueRequest): Promise<{ command: Command; replayed: boolean }> {
      const { spec, params } = checked(req);
      const device = await store.devices.get(req.location.id, req.sn);
      if (!device) throw new BioGateError('DEVICE_NOT_FOUND', `Device ${req.sn} not found`);
      const known = device.version_override ?? device.version;
      if (known !== null && !spec.versions.includes(Number(known.split('.')[0]) as 2 | 3)) {
        throw new BioGateError(
          'COMMAND_NOT_SUPPORTED',
          `${spec.id} is not supported on protocol ${known} devices (supported: ${spec.versions.map((v) => `v${v}.x`).join(', ')})`,
        );
      }
      const finalParams = await preconditions(req, spec, params);
      const storedParams = Object.keys(finalParams).length > 0 ? finalParams : null;

      const replay = async (): Promise<Command | undefined> => {
        if (req.idempotencyKey === undefined) return undefined;
        const prior = await store.commands.findByIdempotencyKey(req.location.id, req.token?.id ?? null, req.idempotencyKey);
        if (!prior) return undefined;
        const same =
          prior.sn === req.sn &&
          prior.command === spec.id &&
          prior.priority === req.priority &&
          isDeepStrictEqual(prior.params, storedParams);
        if (!same) throw new BioGateError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request');
        return prior;
      };
      const prior = await replay();
      if (prior) return { command: prior, replayed: true };
      if (req.urgent !== true && (await store.commands.countPending(req.sn, 'api')) >= deps.mailboxLimit) {
        throw new BioGateError('MAILBOX_FULL', `Device ${req.sn} has ${deps.mailboxLimit} pending commands; retry when it has drained`, {
          headers: { 'Retry-After': '30' },
        });
      }
      const now = clock.now();
      const expiresIn = req.expires_in ?? defaultExpirySeconds(spec);
      // sync-users is a composite: it is not sent itself, its group of per-user ops is (see below).
      const composite = spec.id === 'sync-users';
      if (composite && req.groupId !== undefined) {
        throw invalid([...req.root, 'command'], 'sync-users goes to one terminal (it is a group of its own)', 'value_error');
      }
      let command: Command;
      try {
        command = await lifecycle.create(
          {
            location_id: req.location.id,
            sn: req.sn,
            command: spec.id,
            params: storedParams,
            priority: req.priority,
            origin: 'api',
            expires_at: composite ? null : new Date(now.getTime() + expiresIn * 1000).toISOString(),
            created_by_token_id: req.token?.id ?? null,
            idempotency_key: req.idempotencyKey ?? null,
            composite,
            ...(req.groupId !== undefined ? { group_id: req.groupId } : {}),
          },
          now.toISOString(),
        );
      } catch (err) {
        // Two retries with the same key racing: the store's unique key index lets one create win;
        // the loser answers like a replay instead of failing with the index violation.
        const winner = await replay();
        if (winner) return { command: winner, replayed: true };
        throw err;
      }
      if (known !== null && !composite) {
        // [COMMANDS §2.3, §2.4] a preset the device's dialect cannot express (or the device is known to
        // refuse) fails at once, with the reason, instead of waiting for the device to poll.
        const rendered = await render(store, codecFor(known), command, device, req.location, now);
        if (!rendered.ok) command = (await lifecycle.finish(command, { status: 'failed', error_message: rendered.reason })) ?? command;
      }
      if (composite) command = await queueSyncUsers(req, command, now);
      bus.emit('mailbox.changed', { location_id: req.location.id, sn: req.sn });
      return { command, replayed: false };
    },
  };
}

export type CommandQueue = ReturnType<typeof createCommandQueue>;

/** How long the ops of a sync-users may wait for the terminal (a day, like other presets). */
const SYNC_USERS_EXPIRY_S = 86_400;
