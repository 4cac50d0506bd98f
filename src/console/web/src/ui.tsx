/** Small shared pieces: messages, paging, badges, the typed-confirmation dialog, data loading. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';
import type { Page } from './api-types.js';

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

export function Pager({ page, onPage, label }: { page: Page<unknown> | null; onPage: (n: number) => void; label: string }) {
  if (!page || page.total_pages <= 1) return null;
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={!page.has_prev} onClick={() => onPage(page.page - 1)}>
        Previous
      </button>
      <span aria-live="polite">
        Page {page.page} of {page.total_pages} ({page.total} in all)
      </span>
      <button type="button" disabled={!page.has_next} onClick={() => onPage(page.page + 1)}>
        Next
      </button>
    </nav>
  );
}

export function Online({ online }: { online: boolean }) {
  // Text and shape, not colour alone (WCAG 1.4.1).
  return <span class={online ? 'badge badge-on' : 'badge badge-off'}>{online ? '● Online' : '○ Offline'}</span>;
}

const STATUS_CLASS: Record<string, string> = { pending: 'badge-wait', sent: 'badge-wait', success: 'badge-on', failed: 'badge-bad' };
export function CommandStatus({ status }: { status: string }) {
  return <span class={`badge ${STATUS_CLASS[status] ?? ''}`}>{status}</span>;
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
    <dialog ref={ref} aria-labelledby="confirm-title" onClose={props.onCancel} class="confirm">
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (typed === props.word) props.onConfirm();
        }}
      >
        <h2 id="confirm-title">{props.title}</h2>
        {props.children}
        <label>
          Type <strong>{props.word}</strong> to confirm
          <input value={typed} onInput={(e) => setTyped(e.currentTarget.value)} autoComplete="off" spellcheck={false} />
        </label>
        <div class="actions">
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
          <button type="submit" class="danger" disabled={typed !== props.word}>
            {props.action}
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** The Cancel / Save pair that ends an edit form (the form's submit saves). */
export function FormActions({ onCancel }: { onCancel: () => void }) {
  return (
    <div class="actions">
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" class="primary">
        Save
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
