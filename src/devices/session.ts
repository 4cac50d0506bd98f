/** Session helpers shared by the actor and result handling. */

/** Option keys that carry secrets: never stored or returned [API-CONTRACT §6]. */
const SECRET_KEY = /comm?key|authkey|passw(or)?d|pwd|secret/i;

export function sanitizeOptions(values: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([k]) => !SECRET_KEY.test(k)));
}
