/**
 * The filter of the day-range pages (Attendance, Time cards): the form (From and To days, the page's own fields,
 * Filter applies the draft, Export CSV saves what the API serves for the filter applied), its state and the page.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { download } from './api.js';
import { t, useLanguage } from './i18n/index.js';
import { errorText, type Msg } from './ui.js';

export interface DayRange {
  readonly from: string;
  readonly to: string;
}

/** An input's or select's value, trimmed, into field `name` of the draft. */
export type FieldSetter<F> = (name: keyof F) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) => void;

export function DayFilters<F extends DayRange>({
  draft,
  set,
  onApply,
  onExport,
  children,
}: {
  draft: F;
  set: FieldSetter<F>;
  onApply: () => void;
  onExport: () => void;
  children: ComponentChildren;
}) {
  useLanguage();
  return (
    <form
      class="filters"
      onSubmit={(e) => {
        e.preventDefault();
        onApply();
      }}
    >
      <label>
        {t('days.from')}
        <input type="date" name="from" value={draft.from} onInput={set('from')} />
      </label>
      <label>
        {t('days.to')}
        <input type="date" name="to" value={draft.to} onInput={set('to')} />
      </label>
      {children}
      <button type="submit">{t('days.filter')}</button>
      <button type="button" onClick={onExport}>
        {t('days.export')}
      </button>
    </form>
  );
}

/** A page's filter: the draft being typed, the filter applied, the page number, the export and its message. */
export function useDayFilter<F extends DayRange>(token: string, initial: F, csv: { path: (f: F) => string; file: string }) {
  const [draft, setDraft] = useState<F>(initial);
  const [filter, setFilter] = useState<F>(initial);
  const [page, setPage] = useState(1);
  const [message, setMessage] = useState<Msg>(null);
  const set: FieldSetter<F> = (name) => (e) => setDraft({ ...draft, [name]: e.currentTarget.value.trim() });
  const exportCsv = async () => {
    try {
      const saved = await download(token, csv.path(filter), csv.file);
      setMessage({ kind: 'ok', text: t('days.saved', { name: saved.name, size: String(saved.size) }) });
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };
  const form = {
    draft,
    set,
    // A new object each time: pressing Filter again reads again (new punches, a record voided meanwhile).
    onApply: () => {
      setPage(1);
      setFilter({ ...draft });
    },
    onExport: () => void exportCsv(),
  };
  return { filter, page, setPage, message, form };
}

/** The PIN field of a filter. */
export function PinField<F extends { pin: string }>({ draft, set }: { draft: F; set: FieldSetter<F> }) {
  useLanguage();
  return (
    <label>
      {t('days.pin')}
      <input type="text" name="pin" inputMode="numeric" value={draft.pin} onInput={set('pin')} />
    </label>
  );
}
