/** The jobs port: high-water marks of periodic jobs, moved by compare-and-set. */
import type { Iso } from './records.js';

export interface JobState {
  readonly name: string;
  readonly mark: string;
  readonly updated_at: Iso;
}

export interface JobsPort {
  get(name: string): Promise<JobState | undefined>;
  /**
   * Compare-and-set: moves the mark from `from` (null: the job has no state yet) to `to`. True when
   * this caller moved it; false when the mark was not `from` (another node advanced it first).
   */
  advance(name: string, from: string | null, to: string, now: Iso): Promise<boolean>;
}
