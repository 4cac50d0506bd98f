/**
 * The users' bulk bar (issue #38 item 7): deactivate the selected users (DELETE /api/users/clear with their PINs: one
 * request, the terminals lose them) or delete them (DELETE /api/users/{pin} each, after a typed confirmation).
 */
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { BulkBar, each, outcome, type Selection } from './bulk.js';
import { ConfirmRecord, errorText, type Msg } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

export function UserBulk(props: { token: string; shown: readonly number[]; selection: Selection<number>; onDone: () => void }) {
  useLanguage();
  const { token, selection } = props;
  const [message, setMessage] = useState<Msg>(null);
  const [deleting, setDeleting] = useState<readonly number[] | null>(null);
  const deactivate = async () => {
    const pins = [...selection.keys];
    try {
      // What the server did, not what was asked: a PIN deleted meanwhile is not counted.
      const { users_deleted } = await api<{ users_deleted: number }>(token, 'DELETE', '/api/users/clear', { pins });
      setMessage(outcome(t('userBulk.deactivated'), users_deleted, []));
    } catch (err) {
      setMessage({ kind: 'error', text: t('userBulk.nothing', { error: errorText(err) }) });
    }
    props.onDone();
  };
  const remove = async (pins: readonly number[]) => {
    const [done, failed] = await each(pins, (pin) => api(token, 'DELETE', `/api/users/${pin}`));
    setMessage(outcome(t('userBulk.deleted'), done, failed));
    selection.set(selection.keys.filter((pin) => !pins.includes(pin) || failed.some(([k]) => k === String(pin))));
    props.onDone();
  };
  const none = selection.keys.length === 0;
  return (
    <>
      <BulkBar selection={selection} shown={props.shown} noun="users" message={message}>
        <button type="button" disabled={none} onClick={() => void deactivate()}>
          {t('userBulk.deactivateSelected')}
        </button>
        <button type="button" class="danger" disabled={none} onClick={() => setDeleting([...selection.keys])}>
          {t('userBulk.deleteSelected')}
        </button>
      </BulkBar>
      <ConfirmRecord
        pending={deleting}
        title={t('userBulk.confirm', { n: deleting?.length ?? 0 })}
        word={t('userBulk.word')}
        action={t('userBulk.action')}
        onClose={() => setDeleting(null)}
        onConfirm={(pins) => void remove(pins)}
      >
        <p>{t('userBulk.effect', { pins: deleting?.join(', ') ?? '' })}</p>
      </ConfirmRecord>
    </>
  );
}
