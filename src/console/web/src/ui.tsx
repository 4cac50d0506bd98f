/** Small shared pieces: messages, paging, badges, the typed-confirmation dialog, data loading. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { t } from './i18n/index.js';
import type { Page } from './api-types.js';

/** A page's last outcome, said once above its list. */
export type Msg = { kind: 'ok' | 'error'; text: string } | null;

export function errorText(err: unknown): string {
  if (err instanceof ApiError) return `${err.message} (${err.code})`;
  return err instanceof Error ? err.message : String(err);
}

/** A message announced to screen readers: errors interrupt (alert), the rest waits its turn (status). */
export function Notice({ kind, children }: { kind: 'error' | 'ok' | 'info'; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** The page's message, then each load error that is set, in the order given. */
export function Messages({ message, errors }: { message: Msg; errors: readonly (string | null)[] }) {
  return (
    <>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      {errors.map(
        (e, i) =>
          e && (
            <Notice key={i} kind="error">
              {e}
            </Notice>
          ),
      )}
    </>
  );
}

export function Pager({ page, onPage, label }: { page: Page<unknown> | null; onPage: (n: number) => void; label: string }) {
  if (!page || page.total_pages <= 1) return null;
  return (
    <nav class="pager" aria-label={t('pager.nav', { label })}>
      <button type="button" disabled={!page.has_prev} onClick={() => onPage(page.page - 1)}>
        {t('pager.previous')}
      </button>
      <span aria-live="polite">{t('pager.status', { page: page.page, pages: page.total_pages, total: page.total })}</span>
      <button type="button" disabled={!page.has_next} onClick={() => onPage(page.page + 1)}>
        {t('pager.next')}
      </button>
    </nav>
  );
}

export function Online({ online }: { online: boolean }) {
  // Text and shape, not colour alone (WCAG 1.4.1).
  return <span class={online ? 'badge badge-on' : 'badge badge-off'}>{online ? t('online.on') : t('online.off')}</span>;
}

const STATUS_CLASS: Record<string, string> = { pending: 'badge-wait', sent: 'badge-wait', success: 'badge-on', failed: 'badge-bad' };
export function CommandStatus({ status }: { status: string }) {
  const known = status === 'pending' || status === 'sent' || status === 'success' || status === 'failed';
  return <span class={`badge ${STATUS_CLASS[status] ?? ''}`}>{known ? t(`status.${status}`) : status}</span>;
}

/** Every item of a page-numbered list, read at the API's largest page (100), at most 100 pages. */
export async function allPages<T>(load: (page: number, limit: number) => Promise<Page<T>>): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; page <= 100; page++) {
    const p = await load(page, 100);
    out.push(...p.data);
    if (!p.has_next) break;
  }
  return out;
}

/** Loads on mount and whenever `deps` change; `reload()` loads again. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: readonly unknown[],
): { data: T | null; error: string | null; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (err: unknown) => live && setState((s) => ({ data: s.data, error: errorText(err), loading: false })),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

/**
 * A destructive action has to be confirmed by typing a given word (the serial number, the PIN):
 * a mis-click cannot erase a terminal. A native <dialog>: focus is trapped and Escape cancels.
 */
export function TypedConfirm(props: {
  title: string;
  word: string;
  action: string;
  open: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  children?: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // Several dialogs live on one page (a row's and the bulk bar's): each names itself by its own title.
  const titleId = useId();
  const [typed, setTyped] = useState('');
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) {
      setTyped('');
      d.showModal();
    } else if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={props.onCancel} class="confirm">
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (typed === props.word) props.onConfirm();
        }}
      >
        <h2 id={titleId}>{props.title}</h2>
        {props.children}
        <label>
          {t('confirm.typeBefore')} <strong>{props.word}</strong> {t('confirm.typeAfter')}
          <input value={typed} onInput={(e) => setTyped(e.currentTarget.value)} autoComplete="off" spellcheck={false} />
        </label>
        <div class="actions">
          <button type="button" onClick={props.onCancel}>
            {t('form.cancel')}
          </button>
          <button type="submit" class="danger" disabled={typed !== props.word}>
            {props.action}
          </button>
        </div>
      </form>
    </dialog>
  );
}

/**
 * The typed confirmation of an action on `pending` (null: closed). Confirming closes it and hands the record to
 * `onConfirm`; cancelling (or Escape) calls `onClose`.
 */
export function ConfirmRecord<T>(props: {
  pending: T | null;
  title: string;
  word: string;
  action: string;
  onClose: () => void;
  onConfirm: (record: T) => void;
  children?: ComponentChildren;
}) {
  const { pending, onClose, onConfirm } = props;
  return (
    <TypedConfirm
      open={pending !== null}
      title={props.title}
      word={props.word}
      action={props.action}
      onCancel={onClose}
      onConfirm={() => {
        onClose();
        if (pending !== null) onConfirm(pending);
      }}
    >
      {props.children}
    </TypedConfirm>
  );
}

/** A row's destructive button (Delete, Disable), named for the screen reader by `label`. */
export function DangerButton({ label, onClick, children }: { label: string; onClick: () => void; children: ComponentChildren }) {
  return (
    <button type="button" class="danger" aria-label={label} onClick={onClick}>
      {children}
    </button>
  );
}

/** A table in its scrolling wrapper: a caption for screen readers, one header per column, the rows. */
export function Table({ caption, columns, children }: { caption: string; columns: readonly string[]; children: ComponentChildren }) {
  return (
    <div class="table-wrap">
      <table>
        <caption class="sr-only">{caption}</caption>
        <thead>
          <HeaderRow columns={columns} />
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** The Cancel / Save pair that ends an edit form (the form's submit saves). */
export function FormActions({ onCancel }: { onCancel: () => void }) {
  return (
    <div class="actions">
      <button type="button" onClick={onCancel}>
        {t('form.cancel')}
      </button>
      <button type="submit" class="primary">
        {t('form.save')}
      </button>
    </div>
  );
}

/** A table's header row: one column header per name. */
export function HeaderRow({ columns }: { columns: readonly string[] }) {
  return (
    <tr>
      {columns.map((c) => (
        <th key={c} scope="col">
          {c}
        </th>
      ))}
    </tr>
  );
}

/** A form that stays on the page: submitting calls `onSubmit` instead of navigating. */
export function Form({
  onSubmit,
  children,
  ...attrs
}: {
  onSubmit: () => void;
  children: ComponentChildren;
  class: string;
  role?: 'search';
  'aria-label'?: string;
  'aria-labelledby'?: string;
}) {
  return (
    <form
      {...attrs}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/** A select's options, one per named record, valued by id. */
export function NamedOptions({ list }: { list: readonly { id: number; name: string }[] }) {
  return (
    <>
      {list.map((x) => (
        <option key={x.id} value={String(x.id)}>
          {x.name}
        </option>
      ))}
    </>
  );
}

/** One checkbox per named record, under `legend`; the value is the checked ids, ascending. */
export type IdChoice = { value: readonly number[]; onChange: (ids: number[]) => void };

export function IdChecks(
  props: { class: string; legend: string; hint: ComponentChildren; list: readonly { id: number; name: string }[] } & IdChoice,
) {
  const { value, onChange } = props;
  return (
    <fieldset class={props.class}>
      <legend>{props.legend}</legend>
      <p class="hint">{props.hint}</p>
      {props.list.map((x) => (
        <label key={x.id} class="check">
          <input
            type="checkbox"
            checked={value.includes(x.id)}
            onChange={(e) => onChange(e.currentTarget.checked ? [...value, x.id].sort((a, b) => a - b) : value.filter((id) => id !== x.id))}
          />
          {x.name}
        </label>
      ))}
    </fieldset>
  );
}
