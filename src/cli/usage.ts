/** The `biogate` overview (`biogate`, `biogate --help`): every command with its flags, one line each. */
export const USAGE = `Usage: biogate <command> [flags]

  serve                                         run the gateway (what "npm start" runs)
  location create --name NAME [--timezone TZ] [--require-comm-key on|off] [--json]
  location list [--json]
  location update --id ID [--name NAME] [--timezone TZ] [--require-comm-key on|off]
                  [--attendance-debounce-s S] [--day-start-hour H]
                  [--attendance-photos on|off] [--attendance-photo-retention-days D]
  location disable --id ID
  location enable --id ID
  token create --location ID [--expires-in DAYS] [--scope full|operator|read] [--json]
  token list [--location ID] [--json]
  token revoke --id N
  device list --location ID [--json]
  device assign --location ID --sn SN [--name NAME] [--json]
  device unassign --location ID --sn SN
  device unassigned [--json]                    terminals that called in without being assigned
  device reset-registration --location ID --sn SN   a v3 terminal registers again (README "Security model")
  device accept-registration --location ID --sn SN [--json]
                                                a terminal first seen as v2 may register as v3
  device delete --sn SN                         forget an unassigned terminal (not one a location holds)
  command send --location ID --sn SN PRESET [--params JSON] [--wait] [--json]
  attendance export --location ID --from T --to T [--format csv|jsonl]
  webhook list --location ID [--json]
  webhook create --location ID --url URL --events E1,E2 [--description TEXT] [--batch N] [--json]
                                                the signing secret is printed once
  webhook delete --location ID --id N
  users import --location ID FILE [--dry-run] [--encoding ENC] [--json]
                                                CSV (comma, semicolon or tab) or a JSON array
  templates export --location ID                write the templates as NDJSON to stdout
  templates import --location ID FILE [--json]  NDJSON lines (a bad line is reported and skipped)
  backup --out FILE [--json]                    copy the SQLite store while the server runs (MongoDB: mongodump)
  restore --in FILE [--force] [--json]          put a backup in place of the store (refused while it is in use)
  doctor [--json]                               check configuration, store, ports, TLS, clock, MQTT; exit 1 on problems
  simulate --devices N --protocol v2|v3|mixed --url URL --sn-prefix PREFIX
  config [--markdown]                           show the effective configuration

  -h, --help       show help (also: biogate <command> --help)
  -v, --version    show the BioGate version

Configuration comes from BIOGATE_* environment variables (see README).`;
