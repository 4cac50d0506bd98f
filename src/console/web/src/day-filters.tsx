/**
 * The filter form of the day-range pages (Attendance, Time cards): From and To days, the page's own fields, Filter
 * (applies the draft) and Export CSV.
 */
import type { ComponentChildren } from 'preact';

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
  return (
    <form
      class="filters"
      onSubmit={(e) => {
        e.preventDefault();
        onApply();
      }}
    >
      <label>
        From (day)
        <input type="date" name="from" value={draft.from} onInput={set('from')} />
      </label>
      <label>
        To (day)
        <input type="date" name="to" value={draft.to} onInput={set('to')} />
      </label>
      {children}
      <button type="submit">Filter</button>
      <button type="button" onClick={onExport}>
        Export CSV
      </button>
    </form>
  );
}
