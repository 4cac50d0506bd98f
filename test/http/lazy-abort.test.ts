import t from 'tap';
import { LazyAbort } from '../../src/http/lazy-abort.js';

t.test('aborted is answered without a signal; a signal asked for after the abort is already aborted', async (t) => {
  const a = new LazyAbort();
  let hooks = 0;
  a.onAbort = () => hooks++;
  t.equal(a.aborted, false);
  a.abort();
  a.abort();
  t.equal(a.aborted, true);
  t.equal(hooks, 1, 'the hook runs once');
  t.equal(a.signal.aborted, true, 'made late, born aborted');
  t.equal(a.signal, a.signal, 'one signal per request');
});

t.test('a signal asked for before the abort fires its listeners once', async (t) => {
  const a = new LazyAbort();
  const { signal } = a;
  let fired = 0;
  signal.addEventListener('abort', () => fired++);
  t.equal(signal.aborted, false);
  a.abort();
  a.abort();
  t.equal(fired, 1);
  t.equal(a.aborted, true);
});
