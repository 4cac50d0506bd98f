/**
 * What a stream client may say (README "WebSocket stream"), validated before anything
 * acts on it: a bad frame becomes an `{op:"error"}` answer, never a crash or a silent drop.
 *
 *   {"op":"subscribe","topics":["devices/+/availability","commands/#"]}   no topics: everything
 *   {"op":"unsubscribe","topics":["commands/#"]}                         no topics: all of them
 *   {"op":"resume","after":42}                                           replay the feed after seq 42
 */
import { BioGateError, type ValidationIssue } from '../errors.js';

/** Longest topic filter, and most filters one connection may hold. */
export const MAX_FILTER_LENGTH = 256;
export const MAX_FILTERS = 64;
/** `{"op":"subscribe"}` without topics means every topic. */
export const ALL_TOPICS = '#';

export type ClientMessage =
  | { readonly op: 'subscribe'; readonly topics: readonly string[] }
  | { readonly op: 'unsubscribe'; readonly topics: readonly string[] | null }
  | { readonly op: 'resume'; readonly after: number };

const OPS = ['subscribe', 'unsubscribe', 'resume'] as const;

/** Parses one text frame; throws BAD_REQUEST (not JSON / not an object) or VALIDATION_FAILED. */
export function parseClientMessage(text: string): ClientMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new BioGateError('BAD_REQUEST', 'The message is not valid JSON');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new BioGateError('BAD_REQUEST', 'The message must be a JSON object');
  const msg = raw as Record<string, unknown>;
  const op = msg['op'];
  if (typeof op !== 'string' || !(OPS as readonly string[]).includes(op)) {
    throw issue(['op'], `op must be one of ${OPS.join(', ')}`, 'enum');
  }
  const known = op === 'resume' ? ['op', 'after'] : ['op', 'topics'];
  const extra = Object.keys(msg).filter((k) => !known.includes(k));
  if (extra.length > 0) throw issue([extra[0] as string], `unknown field for op ${op}`, 'extra_forbidden');
  switch (op as (typeof OPS)[number]) {
    case 'subscribe': {
      const topics = readTopics(msg['topics']);
      return { op: 'subscribe', topics: topics ?? [ALL_TOPICS] };
    }
    case 'unsubscribe':
      return { op: 'unsubscribe', topics: readTopics(msg['topics']) };
    case 'resume': {
      const after = msg['after'];
      if (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0)
        throw issue(['after'], 'after must be an integer >= 0 (the last seq received)', 'int_type');
      return { op: 'resume', after };
    }
  }
}

function readTopics(value: unknown): readonly string[] | null {
  if (value === undefined) return null;
  if (!Array.isArray(value)) throw issue(['topics'], 'topics must be an array of topic filters', 'list_type');
  if (value.length === 0) throw issue(['topics'], 'topics must not be empty (leave it out to mean every topic)', 'too_short');
  if (value.length > MAX_FILTERS) throw issue(['topics'], `at most ${MAX_FILTERS} topic filters`, 'too_long');
  const issues: ValidationIssue[] = [];
  value.forEach((f: unknown, i) => {
    const problem = filterProblem(f);
    if (problem) issues.push({ loc: ['topics', i], msg: problem, type: 'value_error' });
  });
  if (issues.length > 0) throw new BioGateError('VALIDATION_FAILED', issues);
  return [...new Set(value as string[])];
}

/** MQTT filter rules [MQTT-4.7.1]: `#` alone and last, `+` a whole level. Null when valid. */
export function filterProblem(filter: unknown): string | null {
  if (typeof filter !== 'string') return 'a topic filter must be a string';
  if (filter.length === 0 || filter.length > MAX_FILTER_LENGTH) return `a topic filter has 1 to ${MAX_FILTER_LENGTH} characters`;
  for (let i = 0; i < filter.length; i++) if (filter.charCodeAt(i) < 0x20) return 'a topic filter must not contain control characters';
  const levels = filter.split('/');
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i] as string;
    if (level.includes('#') && (level !== '#' || i !== levels.length - 1)) return '"#" must be a whole level and the last one';
    if (level.includes('+') && level !== '+') return '"+" must be a whole level';
  }
  return null;
}

function issue(loc: (string | number)[], msg: string, type: string): BioGateError {
  return new BioGateError('VALIDATION_FAILED', [{ loc, msg, type }]);
}
