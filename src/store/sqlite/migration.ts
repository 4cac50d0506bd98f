/** Schema migration: its version, a name recorded with it, and the SQL it runs (applied by migrations.ts). */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}
