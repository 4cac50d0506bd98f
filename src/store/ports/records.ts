/** Record types every port shares: instants, pages and windows. */

export type Iso = string;

export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
}

export interface Window {
  readonly offset: number;
  readonly limit: number;
}
