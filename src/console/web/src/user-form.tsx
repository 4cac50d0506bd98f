/** The user form of the Users page: create or edit one user, with the user's areas and access levels. */
import { useState } from 'preact/hooks';
import type { AccessLevel, Area } from './api-types.js';
import { LevelChecks } from './access-levels.js';
import { AreaChecks } from './areas.js';
import { Form, FormActions } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

const PRIVILEGES = [0, 2, 6, 14] as const;
/** A privilege in words, in the current language (one this console does not know is shown as its number). */
export const privilegeText = (p: number): string =>
  (PRIVILEGES as readonly number[]).includes(p) ? t(`users.privilege.${p as (typeof PRIVILEGES)[number]}`) : String(p);
export type Draft = {
  pin: string;
  first_name: string;
  last_name: string;
  card_no: string;
  department: string;
  position: string;
  privilege: string;
  is_active: boolean;
  areas: number[];
  access_levels: number[];
};
export const EMPTY: Draft = {
  pin: '',
  first_name: '',
  last_name: '',
  card_no: '',
  department: '',
  position: '',
  privilege: '0',
  is_active: true,
  areas: [],
  access_levels: [],
};

export function UserForm({
  initial,
  isNew,
  areas,
  levels,
  onSave,
  onCancel,
}: {
  initial: Draft;
  isNew: boolean;
  areas: readonly Area[];
  levels: readonly AccessLevel[];
  onSave: (d: Draft) => void;
  onCancel: () => void;
}) {
  useLanguage();
  const [d, setD] = useState(initial);
  const field = (name: keyof Draft, label: string, extra: Record<string, unknown> = {}) => (
    <label>
      {label}
      <input value={String(d[name])} onInput={(e) => setD({ ...d, [name]: e.currentTarget.value })} {...extra} />
    </label>
  );
  return (
    <Form class="panel" aria-labelledby="user-form-h" onSubmit={() => onSave(d)}>
      <h2 id="user-form-h">{isNew ? t('users.new') : t('users.editUser', { pin: d.pin })}</h2>
      <div class="form-grid">
        {field('pin', t('users.col.pin'), { required: true, inputMode: 'numeric', pattern: '[0-9]{1,8}', readOnly: !isNew })}
        {field('first_name', t('users.firstName'), { maxLength: 100 })}
        {field('last_name', t('users.lastName'), { maxLength: 100 })}
        {field('card_no', t('users.cardNumber'), { inputMode: 'numeric', pattern: '[0-9]{0,32}' })}
        {field('department', t('users.department'), { maxLength: 100 })}
        {field('position', t('users.position'), { maxLength: 100 })}
        <label>
          {t('users.col.privilege')}
          <select value={d.privilege} onChange={(e) => setD({ ...d, privilege: e.currentTarget.value })}>
            {PRIVILEGES.map((v) => (
              <option key={v} value={String(v)}>
                {privilegeText(v)}
              </option>
            ))}
          </select>
        </label>
        <label class="check">
          <input type="checkbox" checked={d.is_active} onChange={(e) => setD({ ...d, is_active: e.currentTarget.checked })} />
          {t('users.activeCheck')}
        </label>
      </div>
      <AreaChecks areas={areas} value={d.areas} onChange={(ids) => setD({ ...d, areas: ids })} />
      <LevelChecks levels={levels} value={d.access_levels} onChange={(ids) => setD({ ...d, access_levels: ids })} />
      <FormActions onCancel={onCancel} />
    </Form>
  );
}
