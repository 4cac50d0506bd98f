// Which topic filters can select a device's retained topics (src/realtime/snapshot.ts): the snapshot
// reads the location's devices only for those (issue #20). Checked against topicMatches itself over
// every filter built from the pieces below, so the shortcut can never drop a retained topic a
// subscriber would match, nor read the devices for a filter that matches none of them.
import t from 'tap';
import { availabilityTopic, stateTopic, topicMatches } from '../../src/events/topics.js';
import { mayMatchDeviceTopics } from '../../src/realtime/snapshot.js';

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
