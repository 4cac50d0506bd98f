/**
 * Secrets the gateway makes for itself and keeps in the store (a signing key shared by every node). A value is
 * never logged and never leaves the machine in an export; it is in a full SQLite backup like every other row.
 */
export interface SecretsPort {
  /**
   * The stored value of `name`, storing `make()` first when there is none. Atomic: of two callers (two processes)
   * racing on an absent name, both get the value that was stored first; `make` may run in each.
   */
  getOrCreate(name: string, make: () => string): Promise<string>;
}
