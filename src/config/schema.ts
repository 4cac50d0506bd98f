/**
 * Every BioGate setting, in one TypeBox schema: default, unit and description live
 * next to the type, and the README configuration table is generated from here
 * (test/config/config.test.ts fails when they drift).
 */
import { Type, type Static, type TSchema } from 'typebox';

export interface SettingMeta {
  /** Environment variable that overrides the setting. */
  readonly env: string;
  /** Unit shown in the README table ('' when the value has none). */
  readonly unit: string;
  readonly description: string;
  /** Never printed (config dumps show "(set)"). */
  readonly secret?: boolean;
}

const setting = <T extends TSchema>(schema: T, meta: SettingMeta) => ({ schema, meta });

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const onOff = Type.Union([Type.Literal('on'), Type.Literal('off')]);

/** The settings, keyed by their name inside the frozen config object. */
export const SETTINGS = {
  port: setting(Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }), {
    env: 'BIOGATE_PORT',
    unit: 'TCP port',
    description: 'Port of the HTTP listener (REST API, device push endpoints, metrics). 0 picks a free port.',
  }),
  host: setting(Type.String({ minLength: 1, default: '0.0.0.0' }), {
    env: 'BIOGATE_HOST',
    unit: 'address',
    description: 'Address the listeners bind to.',
  }),
  store: setting(
    Type.String({
      pattern: '^(sqlite:.+|mongodb(\\+srv)?://.+)$',
      default: 'sqlite:data/biogate.db',
      description: 'sqlite:<path> or a mongodb:// URL',
    }),
    {
      env: 'BIOGATE_STORE',
      unit: 'URL',
      description: '`sqlite:<path>` for the embedded store (`sqlite::memory:` for a throwaway one), or a `mongodb://` URL for MongoDB.',
    },
  ),
  adminToken: setting(Type.Union([Type.String({ minLength: 24 }), Type.Null()], { default: null }), {
    env: 'BIOGATE_ADMIN_TOKEN',
    unit: 'secret',
    secret: true,
    description: 'Enables the admin API under /admin/ (and protects /metrics) when set; at least 24 characters. Unset: admin API off.',
  }),
  metricsToken: setting(Type.Union([Type.String({ minLength: 24 }), Type.Null()], { default: null }), {
    env: 'BIOGATE_METRICS_TOKEN',
    unit: 'secret',
    secret: true,
    description:
      'A read-only token for Prometheus: it opens /metrics and nothing else; at least 24 characters. With it or BIOGATE_ADMIN_TOKEN set, /metrics needs one of them.',
  }),
  logLevel: setting(
    Type.Union(
      LOG_LEVELS.map((l) => Type.Literal(l)),
      { default: 'info' },
    ),
    {
      env: 'BIOGATE_LOG_LEVEL',
      unit: 'level',
      description: `Log level: ${LOG_LEVELS.join(', ')}.`,
    },
  ),
  logFormat: setting(Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('pretty')], { default: 'auto' }), {
    env: 'BIOGATE_LOG_FORMAT',
    unit: 'format',
    description:
      '`auto`: human-readable lines when stdout is a terminal, one JSON object per line otherwise (pipes, journald, log shippers); `json` or `pretty` to force one.',
  }),
  onlineThresholdS: setting(Type.Integer({ minimum: 5, maximum: 86400, default: 60 }), {
    env: 'BIOGATE_ONLINE_THRESHOLD_S',
    unit: 's',
    description: 'A device counts as online when its last request is at most this old.',
  }),
  bootstrap: setting(Type.Union([onOff], { default: 'on' }), {
    env: 'BIOGATE_BOOTSTRAP',
    unit: 'on/off',
    description: 'On first start with an empty store, create the location "Default" and print its token once to stdout.',
  }),
  bodyLimitMb: setting(Type.Number({ exclusiveMinimum: 0, maximum: 1024, default: 16 }), {
    env: 'BIOGATE_BODY_LIMIT_MB',
    unit: 'MiB',
    description: 'Largest accepted request body; larger bodies get 413.',
  }),
  tlsCert: setting(Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }), {
    env: 'BIOGATE_TLS_CERT',
    unit: 'path',
    description: 'PEM certificate; with BIOGATE_TLS_KEY the listener speaks HTTPS.',
  }),
  tlsKey: setting(Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }), {
    env: 'BIOGATE_TLS_KEY',
    unit: 'path',
    description: 'PEM private key for BIOGATE_TLS_CERT.',
  }),
  shutdownGraceS: setting(Type.Integer({ minimum: 0, maximum: 300, default: 10 }), {
    env: 'BIOGATE_SHUTDOWN_GRACE_S',
    unit: 's',
    description: 'On SIGTERM/SIGINT, how long in-flight requests may take before the process closes anyway.',
  }),
  shutdownDrainS: setting(Type.Integer({ minimum: 0, maximum: 300, default: 5 }), {
    env: 'BIOGATE_SHUTDOWN_DRAIN_S',
    unit: 's',
    description:
      'On SIGTERM, how long BioGate keeps serving with /readyz answering 503 ("draining") before it closes, so load balancers and Kubernetes stop sending it work first. SIGINT (Ctrl-C) skips it; 0 turns it off.',
  }),
  mailboxLimit: setting(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1000 }), {
    env: 'BIOGATE_MAILBOX_LIMIT',
    unit: 'commands',
    description: 'Most API commands one device may have pending; more get 429 MAILBOX_FULL. Background sync ops do not count against it.',
  }),
  httpEngine: setting(Type.Union([Type.Literal('auto'), Type.Literal('uws'), Type.Literal('node')], { default: 'auto' }), {
    env: 'BIOGATE_HTTP_ENGINE',
    unit: 'engine',
    description:
      'HTTP engine: `uws` (uWebSockets.js, native: Node 20, or Node 22–25 with glibc 2.38+), `node` (node:http, any Node from 20.19 on), or `auto`: uws when its native binary loads, else node (README "HTTP engines").',
  }),
  devicePort: setting(Type.Union([Type.Integer({ minimum: 1, maximum: 65535 }), Type.Null()], { default: null }), {
    env: 'BIOGATE_DEVICE_PORT',
    unit: 'TCP port',
    description:
      'Extra plain-HTTP listener serving only /iclock/ (most v2 terminals cannot speak TLS while the API should). Unset: devices use the main port.',
  }),
  deviceOnApi: setting(Type.Union([onOff, Type.Null()], { default: null }), {
    env: 'BIOGATE_DEVICE_ON_API',
    unit: 'on/off',
    description:
      'Serve the device endpoints (/iclock/) on the API port too. Unset: off when BIOGATE_DEVICE_PORT is set (terminals use that port; /iclock/ on the API port answers 404), on otherwise.',
  }),
  longpollS: setting(Type.Union([Type.Integer({ minimum: 0, maximum: 300 }), Type.Null()], { default: null }), {
    env: 'BIOGATE_LONGPOLL_S',
    unit: 's',
    description:
      'How long an idle getrequest is held open waiting for a command. Unset: 0 for v2 terminals (no firmware evidence they tolerate held polls) and 8 for v3 (2 s below the TimeoutSec=10 BioGate announces).',
  }),
  ackTimeoutS: setting(Type.Integer({ minimum: 5, maximum: 86400, default: 300 }), {
    env: 'BIOGATE_ACK_TIMEOUT_S',
    unit: 's',
    description:
      'A sent command with no result after this long fails with "no result from device" (remote enrolment: 600 s); a background sync op is sent again instead, with back-off (BIOGATE_SYNC_RETRY_MAX_S).',
  }),
  syncRetryMaxS: setting(Type.Integer({ minimum: 10, maximum: 86400, default: 300 }), {
    env: 'BIOGATE_SYNC_RETRY_MAX_S',
    unit: 's',
    description:
      'Longest wait before a sync line that is unconfirmed or refused by the terminal is sent again: the wait starts at BIOGATE_ACK_TIMEOUT_S for an unconfirmed line (1 s for a refused one, which was answered) and doubles per re-send up to this. Owed lines are retried without limit while the terminal stays assigned.',
  }),
  auditIntervalS: setting(Type.Integer({ minimum: 10, maximum: 31_536_000, default: 86400 }), {
    env: 'BIOGATE_AUDIT_INTERVAL_S',
    unit: 's',
    description:
      "How often each assigned terminal's user table is read and compared with its location's roster (users it holds that it should not are deleted, missing ones sent again). A v2 heartbeat whose user count disagrees starts an audit sooner; POST /api/devices/{sn}/audit starts one now.",
  }),
  auditMaxOutstanding: setting(Type.Integer({ minimum: 1, maximum: 10_000, default: 20 }), {
    env: 'BIOGATE_AUDIT_MAX_OUTSTANDING',
    unit: 'audits',
    description:
      "Scheduled audits (a terminal's first one after its roster was delivered included) outstanding at once across the deployment; the next runs of the audit job start the rest. Heartbeat-count and API audits start regardless, and take a place while outstanding.",
  }),
  batchMaxCommands: setting(Type.Integer({ minimum: 1, maximum: 200, default: 50 }), {
    env: 'BIOGATE_BATCH_MAX_COMMANDS',
    unit: 'commands',
    description: 'Most command lines in one getrequest reply [PUSH-v2 §7.3].',
  }),
  batchMaxBytes: setting(Type.Integer({ minimum: 1024, maximum: 40960, default: 32768 }), {
    env: 'BIOGATE_BATCH_MAX_BYTES',
    unit: 'bytes',
    description: 'Largest getrequest reply body (the vendor limit is 40 KB) [PUSH-v2 §7.3].',
  }),
  maxUnassigned: setting(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 1000 }), {
    env: 'BIOGATE_MAX_UNASSIGNED',
    unit: 'devices',
    description: 'Unknown serial numbers recorded as unassigned devices; beyond it they get protocol answers but no record.',
  }),
  requireCommKey: setting(Type.Union([onOff], { default: 'off' }), {
    env: 'BIOGATE_REQUIRE_COMM_KEY',
    unit: 'on/off',
    description:
      'on: every location refuses to assign a device without a comm key (`POST /api/devices` without `comm_key` → 422); off: only locations with `require_comm_key` do.',
  }),
  deviceClaim: setting(Type.Union([Type.Literal('open'), Type.Literal('admin')], { default: 'open' }), {
    env: 'BIOGATE_DEVICE_CLAIM',
    unit: 'mode',
    description:
      '`open`: a location token may assign any serial no other location holds. `admin`: a location token may assign only serials once assigned to its location; a serial new to the location is assigned by the admin (`POST /admin/devices/{sn}/assign`, `biogate device assign`), else 403 DEVICE_CLAIM_ADMIN.',
  }),
  quotaDevices: setting(Type.Integer({ minimum: 1, maximum: 100_000_000, default: 10_000 }), {
    env: 'BIOGATE_QUOTA_DEVICES',
    unit: 'devices',
    description: 'Most devices assigned to one location; one more gets 429 QUOTA_EXCEEDED.',
  }),
  quotaUsers: setting(Type.Integer({ minimum: 1, maximum: 100_000_000, default: 1_000_000 }), {
    env: 'BIOGATE_QUOTA_USERS',
    unit: 'users',
    description:
      'Most users in one location; creating one more gets 429 QUOTA_EXCEEDED (an import refuses the new users beyond it as per-item errors, updates still apply).',
  }),
  quotaPhotoMb: setting(Type.Integer({ minimum: 1, maximum: 10_000_000, default: 1024 }), {
    env: 'BIOGATE_QUOTA_PHOTO_MB',
    unit: 'MiB',
    description:
      'Most photo bytes one location keeps (user photos and punch photos together); a user photo beyond it gets 429 QUOTA_EXCEEDED, a punch photo beyond it is not kept (counted in biogate_photos_dropped_total).',
  }),
  quotaRecords: setting(Type.Integer({ minimum: 1000, maximum: 1_000_000_000, default: 1_000_000 }), {
    env: 'BIOGATE_QUOTA_RECORDS',
    unit: 'records',
    description:
      'Most raw device records (tables kept unparsed) and, separately, most door events kept per location; beyond it the oldest are deleted (checked every 10 minutes). Attendance follows BIOGATE_RETENTION_DAYS.',
  }),
  deviceBodyLimitMb: setting(Type.Number({ exclusiveMinimum: 0, maximum: 256, default: 8 }), {
    env: 'BIOGATE_DEVICE_BODY_LIMIT_MB',
    unit: 'MiB',
    description: 'Largest device upload body; larger ones get 413 (the device keeps its data).',
  }),
  retentionDays: setting(Type.Integer({ minimum: 0, maximum: 36_500, default: 0 }), {
    env: 'BIOGATE_RETENTION_DAYS',
    unit: 'days',
    description: 'Attendance records and finished commands older than this are deleted (checked hourly); 0 keeps everything.',
  }),
  auditRetentionDays: setting(Type.Integer({ minimum: 1, maximum: 36_500, default: 365 }), {
    env: 'BIOGATE_AUDIT_RETENTION_DAYS',
    unit: 'days',
    description: 'Audit log entries (GET /api/audit) older than this are deleted (checked hourly).',
  }),
  firmwareCaFile: setting(Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }), {
    env: 'BIOGATE_FIRMWARE_CA_FILE',
    unit: 'path',
    description:
      'PEM file of extra certificate authorities trusted when BioGate downloads firmware for firmware-upgrade (a private firmware server). Unset: the system roots only.',
  }),
  firmwareMaxMb: setting(Type.Number({ exclusiveMinimum: 0, maximum: 1024, default: 256 }), {
    env: 'BIOGATE_FIRMWARE_MAX_MB',
    unit: 'MiB',
    description: 'Largest firmware file BioGate downloads and serves to devices (/iclock/file).',
  }),
  firmwareAllowPrivate: setting(Type.Union([onOff], { default: 'off' }), {
    env: 'BIOGATE_FIRMWARE_ALLOW_PRIVATE',
    unit: 'on/off',
    description:
      'Allow firmware-upgrade download URLs that resolve to loopback, link-local, private or other non-public addresses (server-side request forgery guard); off: a literal such address is refused when the command is queued (422) and such addresses are refused when connecting.',
  }),
  rateLimitRps: setting(Type.Number({ minimum: 0, default: 0 }), {
    env: 'BIOGATE_RATE_LIMIT_RPS',
    unit: 'requests/s',
    description: 'Per-token rate limit for /api (bursts of twice the rate); 0 turns it off. Excess gets 429 with Retry-After.',
  }),
  deviceBodyTimeoutS: setting(Type.Integer({ minimum: 10, maximum: 3600, default: 120 }), {
    env: 'BIOGATE_DEVICE_BODY_TIMEOUT_S',
    unit: 's',
    description:
      'Time a request body may take to arrive in full (terminals on slow links upload slowly); a body still incomplete after it is dropped and the connection closed. Applies on the main and the device listener.',
  }),
  maxActors: setting(Type.Integer({ minimum: 10, maximum: 10_000_000, default: 100_000 }), {
    env: 'BIOGATE_MAX_ACTORS',
    unit: 'devices',
    description:
      'Most device actors (per-serial sessions) held in memory; at the limit the least recently active idle one is dropped (its state is in the store). When all are busy, a new serial gets 503 and retries.',
  }),
  nodeId: setting(Type.Union([Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }), Type.Null()], { default: null }), {
    env: 'BIOGATE_NODE_ID',
    unit: 'name',
    description:
      "This node's name in a cluster (device leases, job leases, the `node` metric label, event origins); letters, digits, `.`, `_`, `-`. Unset: `<hostname>-<pid>`, new on every start.",
  }),
  deviceLeaseS: setting(Type.Integer({ minimum: 5, maximum: 3600, default: 30 }), {
    env: 'BIOGATE_DEVICE_LEASE_S',
    unit: 's',
    description:
      "How long the node serving a terminal's request owns it (renewed on every request). A node that dies loses its terminals to the node they reach next, at the latest after this long.",
  }),
  eventsRetentionS: setting(Type.Integer({ minimum: 60, maximum: 30 * 86400, default: 3600 }), {
    env: 'BIOGATE_EVENTS_RETENTION_S',
    unit: 's',
    description:
      'The event feed keeps events at least this long for consumers resuming after a disconnect (and at least BIOGATE_EVENTS_KEEP per location).',
  }),
  eventsKeep: setting(Type.Integer({ minimum: 100, maximum: 10_000_000, default: 10_000 }), {
    env: 'BIOGATE_EVENTS_KEEP',
    unit: 'events',
    description: 'The event feed keeps at least this many recent events per location, however old.',
  }),
  eventsHoldMaxS: setting(Type.Integer({ minimum: 3600, maximum: 90 * 86400, default: 7 * 86400 }), {
    env: 'BIOGATE_EVENTS_HOLD_MAX_S',
    unit: 's',
    description:
      'Events an enabled webhook subscription has not collected yet are kept past BIOGATE_EVENTS_RETENTION_S, but at most this long; older ones are pruned anyway, with a warning naming the subscription.',
  }),
  corsOrigins: setting(
    Type.String({
      default: '',
      pattern: '^$|^\\s*https?://[^/,\\s]+\\s*(,\\s*https?://[^/,\\s]+\\s*)*$',
      description: 'comma-separated origins, e.g. https://dash.example.com',
    }),
    {
      env: 'BIOGATE_CORS_ORIGINS',
      unit: 'origin list',
      description:
        'Comma-separated browser origins (`https://dash.example.com,http://localhost:5173`) allowed to call the REST API from another site (CORS); preflights are answered for them only. Empty: no cross-origin access.',
    },
  ),
  trustedProxies: setting(Type.String({ default: '' }), {
    env: 'BIOGATE_TRUSTED_PROXIES',
    unit: 'CIDR list',
    description:
      'Comma-separated addresses/CIDRs of reverse proxies (e.g. `10.0.0.0/8,::1`). A request from one of them is taken to come from the address in its `Forwarded` / `X-Forwarded-For` header. Empty: the socket address is the client.',
  }),
  mqtt: setting(Type.String({ pattern: '^(off|embedded|mqtts?://.+)$', default: 'off' }), {
    env: 'BIOGATE_MQTT',
    unit: 'mode/URL',
    description:
      '`off`, `embedded` (an MQTT broker inside BioGate, plus MQTT over WebSocket at /mqtt), or the `mqtt://` / `mqtts://` URL of an external broker BioGate publishes to.',
  }),
  mqttHost: setting(Type.String({ minLength: 1, default: '127.0.0.1' }), {
    env: 'BIOGATE_MQTT_HOST',
    unit: 'address',
    description: 'Address the embedded MQTT broker binds to.',
  }),
  mqttPort: setting(Type.Integer({ minimum: 0, maximum: 65535, default: 1883 }), {
    env: 'BIOGATE_MQTT_PORT',
    unit: 'TCP port',
    description: 'Port of the embedded MQTT broker (0 picks a free port).',
  }),
  mqttBase: setting(Type.String({ pattern: '^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*$', default: 'biogate' }), {
    env: 'BIOGATE_MQTT_BASE',
    unit: 'topic',
    description: 'First topic level of everything BioGate publishes: `<base>/<location_id>/...`.',
  }),
  mqttUsername: setting(Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }), {
    env: 'BIOGATE_MQTT_USERNAME',
    unit: 'name',
    description: 'User name for the external broker.',
  }),
  mqttPassword: setting(Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }), {
    env: 'BIOGATE_MQTT_PASSWORD',
    unit: 'secret',
    secret: true,
    description: 'Password for the external broker.',
  }),
  mqttCaFile: setting(Type.Union([Type.String({ minLength: 1 }), Type.Null()], { default: null }), {
    env: 'BIOGATE_MQTT_CA_FILE',
    unit: 'path',
    description: 'PEM file of certificate authorities trusted for an `mqtts://` broker.',
  }),
  mqttHaDiscovery: setting(Type.Union([onOff], { default: 'off' }), {
    env: 'BIOGATE_MQTT_HA_DISCOVERY',
    unit: 'on/off',
    description: 'Publish Home Assistant MQTT discovery messages (a device per terminal with connectivity, last punch and door locks).',
  }),
  webhookAllowHttp: setting(Type.Union([onOff], { default: 'off' }), {
    env: 'BIOGATE_WEBHOOK_ALLOW_HTTP',
    unit: 'on/off',
    description: 'Allow webhook URLs with `http://` (plain text); off: only `https://`.',
  }),
  webhookSockets: setting(Type.Integer({ minimum: 1, maximum: 4096, default: 64 }), {
    env: 'BIOGATE_WEBHOOK_SOCKETS',
    unit: 'connections',
    description:
      'Webhook requests started at once across all subscriptions (each subscription sends one at a time). A request unanswered after 1 s no longer counts here and takes one of as many slow slots; when those are all taken it is cut off (a failed attempt, retried after its back-off). So at most twice this many connections are open, and slow receivers never hold a ready one back.',
  }),
  webhookAllowPrivate: setting(Type.Union([onOff], { default: 'off' }), {
    env: 'BIOGATE_WEBHOOK_ALLOW_PRIVATE',
    unit: 'on/off',
    description:
      'Allow webhook destinations that resolve to loopback, link-local, private or other non-public addresses (server-side request forgery guard); off: such URLs are refused when created and such addresses are refused when connecting.',
  }),
  biotimeApi: setting(Type.Union([onOff], { default: 'on' }), {
    env: 'BIOGATE_BIOTIME_API',
    unit: 'on/off',
    description: 'The BioTime-compatible API under /biotime/ on the API listener (src/biotime/); off: those paths answer 404.',
  }),
  biotimeJwtTtlS: setting(Type.Integer({ minimum: 60, maximum: 2_592_000, default: 3600 }), {
    env: 'BIOGATE_BIOTIME_JWT_TTL_S',
    unit: 's',
    description: 'Lifetime of a token from POST /biotime/jwt-api-token-auth/ (its `exp` claim).',
  }),
} as const;

export type SettingKey = keyof typeof SETTINGS;

export const ConfigSchema = Type.Object(
  Object.fromEntries(Object.entries(SETTINGS).map(([k, s]) => [k, s.schema])) as {
    [K in SettingKey]: (typeof SETTINGS)[K]['schema'];
  },
  { additionalProperties: false },
);

export type Config = Readonly<Static<typeof ConfigSchema>>;
