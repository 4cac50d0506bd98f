/** The terminal exchange log port (issue #36 item 2): the last exchanges of each terminal, no bodies. */
import type { Iso } from './records.js';

/**
 * One exchange of a terminal with BioGate, or a run of identical consecutive ones (`repeat` > 1: idle
 * polls, say, from `first_at` to `at`). Never a body, never a template byte: what was asked, of which
 * table, how many lines, what was answered and how long the answer was.
 */
export interface DeviceExchange {
  /** `<node>:<sequence>`, unique in the cluster; a run keeps the key of its first exchange. */
  readonly key: string;
  readonly location_id: number;
  readonly sn: string;
  /** the last exchange of the run */
  readonly at: Iso;
  readonly first_at: Iso;
  readonly repeat: number;
  readonly method: string;
  /** the protocol endpoint (`cdata`, `getrequest`, `devicecmd`, `registry` …) */
  readonly endpoint: string;
  /** the upload's table (`ATTLOG`, `rtlog`, `user` …), as the terminal named it; null when none */
  readonly table: string | null;
  /** lines in the request body; null for a request without one */
  readonly records: number | null;
  readonly status: number;
  readonly answer_bytes: number;
  /** why the exchange went wrong, when it did (a refusal, lines that did not decode, refused commands) */
  readonly error: string | null;
}

export interface ExchangeTrim {
  readonly location_id: number;
  readonly sn: string;
}

export interface ExchangesPort {
  /**
   * Writes each entry by key (a run is written again as it grows), then keeps only the newest `keep` entries
   * (by `at`, then key) of each terminal in `trim`, per location (a terminal that moved keeps its entries under
   * the location it left, which never sees them again but for their bound).
   */
  write(entries: readonly DeviceExchange[], trim: readonly ExchangeTrim[], keep: number): Promise<void>;
  /** The location's entries of `sn`, newest first, at most `limit`. */
  list(locationId: number, sn: string, limit: number): Promise<DeviceExchange[]>;
}
