// Which topic filters can select a device's retained topics (src/realtime/snapshot.ts): the snapshot
// reads the location's devices only for those (issue #20). Checked against topicMatches itself over
// every filter built from the pieces below, so the shortcut can never drop a retained topic a
// subscriber would match, nor read the devices for a filter that matches none of them.
import t from 'tap';
import { availabilityTopic, PRESENCE_TOPIC, presenceMessages, presenceTopic, stateTopic, topicMatches } from '../../src/events/topics.js';
import { mayMatchDeviceTopics, mayMatchPresenceTopics } from '../../src/realtime/snapshot.js';

const PIECES = ['#', '+', 'devices', 'commands', 'attendance', 'events', 'SN1', 'SN2', 'availability', 'state', 'x'];
/** every name above could be a serial (serials are letters, digits, - and _) */
const SERIALS = PIECES.filter((p) => p !== '#' && p !== '+');

function* filters(depth: number, prefix: string[] = []): Generator<string> {
  if (prefix.length > 0) yield prefix.join('/');
  if (prefix.length === depth || prefix.at(-1) === '#') return;
  for (const p of PIECES) yield* filters(depth, [...prefix, p]);
}

t.test('mayMatchDeviceTopics agrees with topicMatches on every filter of up to 4 levels', async (t) => {
  let checked = 0;
  let wrong = 0;
  for (const f of filters(4)) {
    const matches = SERIALS.some((sn) => topicMatches(f, availabilityTopic(sn)) || topicMatches(f, stateTopic(sn)));
    if (mayMatchDeviceTopics(f) !== matches) {
      wrong++;
      t.fail(`${f}: mayMatch ${mayMatchDeviceTopics(f)}, topicMatches ${matches}`);
    }
    checked++;
  }
  t.equal(wrong, 0, `${checked} filters checked`);
  t.ok(checked > 10_000);
  t.equal(mayMatchDeviceTopics('commands/#'), false);
  t.equal(mayMatchDeviceTopics('#'), true);
  t.equal(mayMatchDeviceTopics('devices/SN1/state'), true);
});

t.test('mayMatchPresenceTopics agrees with topicMatches on every filter of up to 3 levels', async (t) => {
  const pieces = ['#', '+', 'presence', 'devices', '101', '7', 'x'];
  /** a PIN is whatever the terminal reported: any of the names could be one */
  const pins = pieces.filter((p) => p !== '#' && p !== '+');
  let checked = 0;
  const walk = function* (prefix: string[]): Generator<string> {
    if (prefix.length > 0) yield prefix.join('/');
    if (prefix.length === 3 || prefix.at(-1) === '#') return;
    for (const p of pieces) yield* walk([...prefix, p]);
  };
  for (const f of walk([])) {
    const matches = topicMatches(f, PRESENCE_TOPIC) || pins.some((pin) => topicMatches(f, presenceTopic(pin)));
    if (mayMatchPresenceTopics(f) !== matches) t.fail(`${f}: mayMatch ${mayMatchPresenceTopics(f)}, topicMatches ${matches}`);
    checked++;
  }
  t.ok(checked > 300, `${checked} filters checked`);
  t.equal(mayMatchPresenceTopics('presence/#'), true);
  t.equal(mayMatchPresenceTopics('devices/#'), false);
});

t.test('presence messages: the head count and each PIN that is one topic level', async (t) => {
  const user = (pin: string) => ({ pin, name: null, state: 'in' as const, since: '2026-03-02T08:00:00+00:00', sn: 'S' });
  const msgs = presenceMessages(2, [user('101'), user('a/b'), user('+'), user(''), user('1\u00002')]);
  t.same(
    msgs.map((m) => [m.topic, m.retain]),
    [
      ['presence', true],
      ['presence/101', true],
    ],
    'a PIN with a separator or a wildcard gets no topic of its own (it still counts)',
  );
  t.same(msgs[0]?.payload, { count: 2 });
});
