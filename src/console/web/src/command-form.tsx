/**
 * "Send a command" on the terminal page: every preset the terminal's protocol and the token's scope allow (the
 * document's `x-presets`, generated at build), with a form made from the preset's parameters: numbers with their
 * bounds, choices as a drop-down, text. An empty optional field is left out (the server fills its default). A risky
 * preset needs the serial typed, as its button does.
 */
import { useState } from 'preact/hooks';
import { api, type Session } from './api.js';
import type { Command, Scope } from './api-types.js';
import { PRESETS } from './generated/presets.js';
import { errorText, Form, Notice, TypedConfirm } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

interface Field {
  readonly name: string;
  readonly type: string;
  readonly choices?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly maxLength?: number;
  readonly required: boolean;
  readonly description: string;
}

interface PresetInfo {
  readonly id: string;
  readonly description: string;
  readonly protocol_versions: readonly string[];
  readonly risk: string;
  readonly scope: readonly string[];
  readonly defaults: Readonly<Record<string, unknown>>;
  readonly fields: readonly Field[];
}

const ALL = PRESETS as unknown as readonly PresetInfo[];

/** The presets a token of `scope` may queue on a terminal speaking `version` (null: not yet known, all of them). */
export const presetsForTerminal = (scope: Scope, version: string | null): readonly PresetInfo[] =>
  ALL.filter((p) => p.scope.includes(scope) && (version === null || p.protocol_versions.includes(version)));

type Values = Record<string, string>;

const initial = (p: PresetInfo | undefined): Values =>
  Object.fromEntries(
    (p?.fields ?? []).map((f) => [
      f.name,
      p?.defaults[f.name] === undefined || p.defaults[f.name] === null ? '' : String(p.defaults[f.name]),
    ]),
  );

function params(p: PresetInfo, values: Values): Record<string, unknown> | undefined {
  if (p.fields.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const f of p.fields) {
    const v = (values[f.name] ?? '').trim();
    if (v === '') continue;
    out[f.name] = f.type === 'integer' || f.type === 'number' ? Number(v) : v;
  }
  return out;
}

function FieldInput({ field, value, onInput }: { field: Field; value: string; onInput: (v: string) => void }) {
  useLanguage();
  const hint = field.description ? <span class="hint">{field.description}</span> : null;
  if (field.choices)
    return (
      <label>
        {field.name}
        <select value={value} required={field.required} onChange={(e) => onInput(e.currentTarget.value)}>
          {!field.required && <option value="">{t('commandForm.default')}</option>}
          {field.choices.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        {hint}
      </label>
    );
  const numeric = field.type === 'integer' || field.type === 'number';
  return (
    <label>
      {field.name}
      {numeric ? (
        <input
          type="number"
          value={value}
          required={field.required}
          min={field.minimum}
          max={field.maximum}
          step={field.type === 'integer' ? 1 : 'any'}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
      ) : (
        <input
          type="text"
          value={value}
          required={field.required}
          maxLength={field.maxLength}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
      )}
      {hint}
    </label>
  );
}

export function CommandForm({
  session,
  sn,
  version,
  onQueued,
}: {
  session: Session;
  sn: string;
  version: string | null;
  onQueued: () => void;
}) {
  useLanguage();
  const scope = (session.kind === 'location' ? session.me.token?.scope : undefined) ?? 'full';
  const offered = presetsForTerminal(scope, version);
  const [id, setId] = useState(offered[0]?.id ?? '');
  const preset = offered.find((p) => p.id === id);
  const [values, setValues] = useState<Values>(() => initial(preset));
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  if (offered.length === 0) return null;

  const choose = (next: string) => {
    setId(next);
    setValues(initial(offered.find((p) => p.id === next)));
    setMessage(null);
  };
  const send = async () => {
    setConfirming(false);
    if (!preset) return;
    const p = params(preset, values);
    try {
      const c = await api<Command>(session.token, 'POST', `/api/devices/${encodeURIComponent(sn)}/command`, {
        command: preset.id,
        ...(p ? { params: p } : {}),
      });
      setMessage({
        kind: 'ok',
        text: t('commandForm.queued', { id: preset.id, command: String(c.id), status: t(`status.${c.status}`) }),
      });
      onQueued();
    } catch (err) {
      setMessage({ kind: 'error', text: `${preset.id}: ${errorText(err)}` });
    }
  };

  return (
    <section aria-labelledby="send-h">
      <h2 id="send-h">{t('commandForm.title')}</h2>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      <Form class="panel" aria-labelledby="send-h" onSubmit={() => (preset?.risk === 'risky' ? setConfirming(true) : void send())}>
        <label class="block">
          {t('commandForm.command')}
          <select value={id} onChange={(e) => choose(e.currentTarget.value)}>
            {offered.map((p) => (
              <option key={p.id} value={p.id}>
                {p.id}
              </option>
            ))}
          </select>
          {preset && <span class="hint">{preset.description}</span>}
        </label>
        {preset && preset.fields.length > 0 && (
          <div class="form-grid">
            {preset.fields.map((f) => (
              <FieldInput
                key={f.name}
                field={f}
                value={values[f.name] ?? ''}
                onInput={(v) => setValues((old) => ({ ...old, [f.name]: v }))}
              />
            ))}
          </div>
        )}
        <div class="actions">
          <button type="submit" class={preset?.risk === 'risky' ? 'danger' : 'primary'}>
            {t('commandForm.queue', { id })}
          </button>
        </div>
      </Form>
      <TypedConfirm
        open={confirming}
        title={t('commandForm.confirm', { id, sn })}
        word={sn}
        action={t('commandForm.queue', { id })}
        onCancel={() => setConfirming(false)}
        onConfirm={() => void send()}
      >
        <p>{t('commandForm.risky')}</p>
      </TypedConfirm>
    </section>
  );
}
