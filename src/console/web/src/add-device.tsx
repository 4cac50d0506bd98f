/** Assigns a terminal to the location (POST /api/devices); the grid shows it through the stream. */
import { useState } from 'preact/hooks';
import { api } from './api.js';
import { errorText, Notice } from './ui.js';

export function AddDevice({ token }: { token: string }) {
  const [sn, setSn] = useState('');
  const [name, setName] = useState('');
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  return (
    <details class="panel">
      <summary>Add a terminal</summary>
      <form
        class="filters"
        aria-label="Add a terminal"
        onSubmit={(e) => {
          e.preventDefault();
          const serial = sn.trim();
          api(token, 'POST', '/api/devices', { sn: serial, ...(name.trim() ? { name: name.trim() } : {}) }).then(
            () => {
              setMessage({ kind: 'ok', text: `${serial} assigned: it is synchronised as soon as it connects.` });
              setSn('');
              setName('');
            },
            (err: unknown) => setMessage({ kind: 'error', text: errorText(err) }),
          );
        }}
      >
        <label>
          Serial number
          <input value={sn} required maxLength={64} pattern="[A-Za-z0-9_\-]+" onInput={(e) => setSn(e.currentTarget.value)} />
        </label>
        <label>
          Name
          <input value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary">
          Assign
        </button>
      </form>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
    </details>
  );
}
