/**
 * Bulk actions: a selection of rows (users by PIN, terminals by serial number) and the bar that acts on it. Each action
 * goes to the API once per record (or once for all, where the API takes a list) and the bar says how many succeeded
 * and which failed and why; nothing is retried behind the user's back.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from './api.js';
import type { Device, Scope } from './api-types.js';
import { presetsFor, type Preset } from './presets.js';
import { errorText, Notice, type Msg } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

export interface Selection<K> {
  readonly keys: readonly K[];
  has(key: K): boolean;
  toggle(key: K, on: boolean): void;
  set(keys: readonly K[]): void;
}

export function useSelection<K>(): Selection<K> {
  const [keys, setKeys] = useState<readonly K[]>([]);
  return {
    keys,
    has: (key) => keys.includes(key),
    toggle: (key, on) => setKeys((old) => (on ? [...old.filter((k) => k !== key), key] : old.filter((k) => k !== key))),
    set: setKeys,
  };
}

/** A row's checkbox, named for the screen reader by `label`. */
export function SelectBox<K>({ selection, value, label }: { selection: Selection<K>; value: K; label: string }) {
  return (
    <input
      type="checkbox"
      aria-label={label}
      checked={selection.has(value)}
      onChange={(e) => selection.toggle(value, e.currentTarget.checked)}
    />
  );
}

/** The bar over a list: how many are selected, "Select all shown", "Clear", and the actions. */
export function BulkBar<K>(props: {
  selection: Selection<K>;
  shown: readonly K[];
  noun: 'users' | 'terminals';
  message: Msg;
  children: ComponentChildren;
}) {
  useLanguage();
  const { selection, shown } = props;
  return (
    <div class="bulk" role="toolbar" aria-label={t(`bulk.${props.noun}`)}>
      <span aria-live="polite">{t(`bulk.${props.noun}Count`, { n: selection.keys.length })}</span>
      <button type="button" onClick={() => selection.set([...new Set([...selection.keys, ...shown])])}>
        {t('bulk.selectAll')}
      </button>
      <button type="button" disabled={selection.keys.length === 0} onClick={() => selection.set([])}>
        {t('bulk.clear')}
      </button>
      {props.children}
      {props.message && <Notice kind={props.message.kind}>{props.message.text}</Notice>}
    </div>
  );
}

/** "N done" and, for the rest, each key with the API's reason (`what` is already in the current language). */
export function outcome(what: string, done: number, failed: readonly (readonly [string, string])[]): Msg {
  if (failed.length === 0) return { kind: 'ok', text: t('bulk.done', { what, done }) };
  const list = failed.map(([key, why]) => t('bulk.failure', { key, why })).join('; ');
  return { kind: 'error', text: t('bulk.notDone', { what, done, failed: list }) };
}

/** Runs `act` for each key, one after the other, and collects what failed. */
export async function each<K>(keys: readonly K[], act: (key: K) => Promise<unknown>): Promise<[number, [string, string][]]> {
  let done = 0;
  const failed: [string, string][] = [];
  for (const key of keys) {
    try {
      await act(key);
      done++;
    } catch (err) {
      failed.push([String(key), errorText(err)]);
    }
  }
  return [done, failed];
}

/** The terminals' bar: a preset without risk (the token's scope allows it) queued on every selected terminal. */
export function DeviceBulk(props: { token: string; scope: Scope; devices: readonly Device[]; selection: Selection<string> }) {
  useLanguage();
  const { token, selection } = props;
  const presets = presetsFor(props.scope).filter((p) => !p.risky);
  const [preset, setPreset] = useState<Preset | undefined>(presets[0]);
  const [message, setMessage] = useState<Msg>(null);
  const queue = async () => {
    if (!preset) return;
    const versionOf = new Map(props.devices.map((d) => [d.serial_number, d.version_override ?? d.version]));
    const [done, failed] = await each(selection.keys, async (sn) => {
      const version = versionOf.get(sn);
      if (version && !preset.versions.includes(version)) throw new Error(t('bulk.notOn', { version }));
      await api(token, 'POST', '/api/commands', { sn, command: preset.id, ...(preset.params ? { params: preset.params } : {}) });
    });
    setMessage(outcome(t('bulk.queued', { label: preset.label }), done, failed));
  };
  return (
    <BulkBar selection={selection} shown={props.devices.map((d) => d.serial_number)} noun="terminals" message={message}>
      <label>
        {t('bulk.command')}
        <select value={preset?.id} onChange={(e) => setPreset(presets.find((p) => p.id === e.currentTarget.value))}>
          {presets.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
        </select>
      </label>
      <button type="button" class="primary" disabled={selection.keys.length === 0 || !preset} onClick={() => void queue()}>
        {t('bulk.queueSelected')}
      </button>
    </BulkBar>
  );
}
