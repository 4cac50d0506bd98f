/**
 * The composition root: builds every part from the config and wires them.
 * Nothing listens until start(); close() undoes it all in reverse order.
 */
import { createWebhookDispatcher } from './webhooks/dispatcher.js';
import { createCommandQueue } from './devices/command-queue.js';
import { EventBus } from './events/bus.js';
import { createPresenceFeed } from './attendance/presence-feed.js';
import { createCommandLifecycle } from './devices/lifecycle.js';
import { createSyncQueue } from './sync/queue.js';
import { sweepAccessWindowJob } from './sync/access-window-job.js';
import { createSyncOutbox } from './sync/outbox.js';
import { createTimeSync } from './sync/time-sync.js';
import { createFirmwareCache } from './devices/firmware.js';
import { createDeviceGuard } from './devices/guard.js';
import { Hub } from './devices/hub.js';
import { runtimeConfig, type RuntimeConfig } from './devices/runtime-config.js';
import { createCredentials } from './auth/credentials.js';
import { mountPushRoutes } from './push/routes.js';
import { systemClock, type Clock } from './clock.js';
import { trustedProxies } from './http/client-address.js';
import { logEngine, resolveHttpEngine } from './http/engine.js';
import { createHttpServer } from './http/server.js';
import type { HttpRequest } from './http/types.js';
import { createLocationService } from './locations/service.js';
import { createAccessLog } from './log.js';
import { Counter, MetricsRegistry } from './ops/metrics.js';
import { auditCounters, registerGauges, revocationLatency } from './app/gauges.js';
import { createTerminalState } from './sync/terminal-state.js';
import { createAudit } from './sync/audit.js';
import { bootstrapBanner, bootstrapLocation } from './app/bootstrap.js';
import { followCluster } from './app/cluster.js';
import { httpResponseRecorder } from './app/http-metrics.js';
import { mountOpsRoutes } from './ops/routes.js';
import { resolveNodeId } from './node-id.js';
import { openStore } from './store/open.js';
import { ClusterFeed } from './events/feed.js';
import { logActivity } from './ops/activity-log.js';
import { createLeadership } from './events/leader.js';
import { startMqttBridge, type MqttBridge } from './bridge/mqtt/index.js';
import { backgroundJobs } from './app/jobs.js';
import { mqttWebSocketRoute } from './bridge/mqtt/websocket-route.js';
import { mountStream } from './realtime/index.js';
import { mountConsole } from './console/routes.js';
import type { Store } from './store/types.js';
import { actingAs, SYSTEM } from './audit-log/actor.js';
import { announceAudit } from './audit-log/announce.js';
import { mountApiDoors } from './app/api-doors.js';
import type { AuditEntry } from './store/ports/index.js';
import { withAuditLog } from './audit-log/store.js';

import type { App, AppOptions } from './app/types.js';

export type { App, AppOptions };

export async function buildApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  // Changes a door's actor makes are recorded in the audit log (src/audit-log/).
  const store = withAuditLog(await openStore(config.store), clock);
  try {
    return assemble(options, store, clock);
  } catch (err) {
    await store.close();
    throw err;
  }
}

function assemble(options: AppOptions, store: Store, clock: Clock): App {
  const { config, logger } = options;
  // The node id is resolved once, here; every part that needs it gets it from this constant.
  const nodeId = resolveNodeId(config);
  const metrics = new MetricsRegistry({ defaultLabels: { node: nodeId } });
  // One access-log line per API request, with the caller's location (learnt at authentication).
  const accessLog = createAccessLog(logger);
  const locationOf = new WeakMap<HttpRequest, number>();
  const tls = config.tlsCert && config.tlsKey ? { certFile: config.tlsCert, keyFile: config.tlsKey } : undefined;
  const proxies = trustedProxies(config.trustedProxies);
  // uWebSockets.js where its binary loads, node:http elsewhere (or as chosen); resolved
  // once, so both listeners run on the same engine and the choice is logged once.
  const engine = resolveHttpEngine(config.httpEngine);
  logEngine(logger, engine);
  const http = createHttpServer({
    logger,
    engine: engine.engine,
    trustedProxies: proxies,
    bodyLimit: Math.floor(config.bodyLimitMb * 1024 * 1024),
    tls,
    bodyTimeoutMs: config.deviceBodyTimeoutS * 1000,
    onResponse: httpResponseRecorder(metrics, accessLog, locationOf),
  });

  const bus = new EventBus((err, event) => logger.error({ err, event }, 'event listener failed'));
  logActivity(bus, logger);
  const feed = new ClusterFeed({
    store,
    bus,
    log: logger,
    node: nodeId,
    now: () => clock.now(),
    onlineThresholdS: config.onlineThresholdS,
  });
  const runtime: RuntimeConfig = { ...runtimeConfig(config), ...options.runtime };
  // API callers' tokens kept between requests, as long as the feed vouches for them.
  const credentials = createCredentials(
    store,
    () => (feed.clustered ? runtime.pollTrust.trustedMs : runtime.pollTrust.untrustedMs),
    () => feed.catchUp(),
  );
  const timeSync = createTimeSync({ store, clock, bus, log: logger });
  const locations = createLocationService(store, clock, {
    timeZoneChanged: (l) => timeSync.check(l.id, { force: true }),
    // idle polls answer from a snapshot of device and location: drop it at once here,
    // and on the other nodes through the feed.
    changed: (l) => {
      hub.locationChanged(l.id);
      credentials.forgetLocation(l.id);
      feed
        .signal('location.changed', { id: l.id })
        .catch((err: unknown) => logger.warn({ err, location_id: l.id }, 'could not tell the other nodes that a location changed'));
    },
    tokenRevoked: (token) => {
      credentials.forgetToken(token.id);
      feed
        .signal('token.revoked', { id: token.id })
        .catch((err: unknown) => logger.warn({ err, token_id: token.id }, 'could not tell the other nodes that a token was revoked'));
    },
  });
  const lifecycle = createCommandLifecycle({ store, clock, bus });
  const sync = createSyncQueue(store, clock, bus);
  const terminals = createTerminalState({ store, clock, bus, log: logger, onRevocationConfirmed: revocationLatency(metrics) });
  const outbox = createSyncOutbox({ store, sync, clock, bus, log: logger });
  const audit = createAudit({
    store,
    clock,
    bus,
    log: logger,
    sync,
    terminals,
    intervalS: config.auditIntervalS,
    maxOutstanding: config.auditMaxOutstanding,
    create: lifecycle.create,
    ...auditCounters(metrics),
  });
  const commands = createCommandQueue({
    store,
    clock,
    bus,
    lifecycle,
    mailboxLimit: config.mailboxLimit,
    firmwareAllowPrivate: config.firmwareAllowPrivate === 'on',
    queueRoster: sync.queueRoster,
  });
  const firmware = createFirmwareCache({
    caFile: config.firmwareCaFile,
    maxBytes: Math.floor(config.firmwareMaxMb * 1024 * 1024),
    allowPrivate: config.firmwareAllowPrivate === 'on',
  });
  const strayResults = metrics.register(
    new Counter(
      'biogate_device_stray_results_total',
      "Command results a device posted for commands it was not sent (pending, another device's, finished or unknown): ignored",
    ),
  );
  const unknownTables = metrics.register(
    new Counter(
      'biogate_device_unknown_tables_total',
      'Device uploads of tables no protocol reference names (acknowledged; text records kept raw)',
      { maxSeries: 50 },
    ),
  );
  // Webhooks: a singleton job delivering the feed to subscribers' URLs.
  const webhookPolicy = { allowHttp: config.webhookAllowHttp === 'on', allowPrivate: config.webhookAllowPrivate === 'on' };
  const webhooks = createWebhookDispatcher({
    store,
    clock,
    log: logger,
    node: nodeId,
    policy: webhookPolicy,
    metrics,
    sockets: config.webhookSockets,
  });
  // Who is in after punches (issue #35): listens from start() on; a new working day empties it (a singleton job).
  const presence = createPresenceFeed({ store, clock, bus, log: logger });
  const hub = new Hub({
    store,
    clock,
    bus,
    log: logger,
    sync,
    firmware,
    config: runtime,
    onUnknownTable: (table) => unknownTables.inc({ table }),
    lifecycle,
    onStrayResult: () => strayResults.inc({}),
    onSyncRefused: terminals.refused,
    onDeviceUsers: audit.reconcile,
    onAccessTables: audit.reconcileAccess,
    onReportedCounts: audit.onCounts,
    maxActors: config.maxActors,
    guard: createDeviceGuard(metrics, clock),
    node: nodeId,
    feedTrusted: () => feed.clustered,
    sweepAccessWindows: () => sweepAccessWindowJob(store, sync, clock.now()),
    onTakeover: (sn, previous) =>
      void feed
        .signal('device.claimed', { sn, owner: nodeId, previous })
        .catch((err: unknown) => logger.warn({ err, sn }, 'could not tell the previous node that a device moved')),
    jobs: [
      ...backgroundJobs({ store, clock, log: logger, config, webhooks, bus }),
      audit.job,
      terminals.job,
      { name: 'presence-rollover', everyMs: 60_000, run: () => presence.rollover() },
    ],
  });
  followCluster({
    feed,
    hub,
    bus,
    credentials,
    nodeId,
    leaderReleased: (name) => {
      if (name === 'mqtt-bridge' && config.mqtt !== 'off' && config.mqtt !== 'embedded') void mqttLeader.renewNow();
    },
  });
  const { apiRoutes, limiter, admin } = mountApiDoors(
    http,
    {
      config,
      store,
      clock,
      bus,
      log: logger,
      sync,
      outbox,
      commands,
      lifecycle,
      locations,
      hub,
      webhookPolicy,
      terminals,
      audit,
      pokeWebhooks: webhooks.poke,
      webhooksChanged: webhooks.subscriptionsChanged,
    },
    { credentials, locationOf, tls: Boolean(tls), apiBodyTimeoutMs: options.apiBodyTimeoutMs },
  );
  // GET /api/stream: the feed of one location over WebSocket.
  const stream = mountStream({
    http,
    store,
    feed,
    clock,
    log: logger,
    onlineThresholdS: config.onlineThresholdS,
    liveLastSeen: (sn) => hub.presence.lastSeenOf(sn),
    onlineElsewhere: (sn) => hub.presence.onlineElsewhere(sn),
    syncStates: (devices) => terminals.views(devices),
    ...(limiter ? { onCaller: (c) => limiter.take(c.token.id) } : {}),
  });
  const protocolErrors = metrics.register(
    new Counter('biogate_device_protocol_errors_total', 'Device requests refused by the codec, by code'),
  );
  registerGauges(metrics, { store, hub, http, engine: engine.engine, terminals, bus });
  const deviceBodyLimit = Math.floor(config.deviceBodyLimitMb * 1024 * 1024);
  // BIOGATE_DEVICE_ON_API: with a device port, terminals use it and /iclock/ on the API port is a 404 (unless turned on).
  if ((config.deviceOnApi ?? (config.devicePort === null ? 'on' : 'off')) === 'on')
    mountPushRoutes(http, { hub, bodyLimit: deviceBodyLimit, protocolErrors });
  // [API-CONTRACT §6] a plain-HTTP listener for /iclock/ only, for terminals that cannot speak TLS.
  const deviceHttp =
    config.devicePort === null
      ? undefined
      : createHttpServer({
          logger,
          engine: engine.engine,
          bodyLimit: deviceBodyLimit,
          bodyTimeoutMs: config.deviceBodyTimeoutS * 1000,
          trustedProxies: proxies,
        });
  if (deviceHttp) mountPushRoutes(deviceHttp, { hub, bodyLimit: deviceBodyLimit, protocolErrors });
  let stopping = false;
  let draining = false;
  let closing: Promise<void> | undefined;
  let mqtt: MqttBridge | null = null;
  const mqttLeader = createLeadership({
    store,
    clock,
    log: logger,
    node: nodeId,
    name: 'mqtt-bridge',
    released: () => feed.signal('leader.released', { name: 'mqtt-bridge' }),
  });
  if (config.mqtt === 'embedded') http.websocket(mqttWebSocketRoute(() => mqtt));
  mountOpsRoutes(http, { store, metrics, admin, readiness: () => (stopping ? 'stopping' : draining ? 'draining' : 'serving') });
  mountConsole(http); // The web console: static pages on the public API and /api/stream only.

  return {
    store,
    http,
    locations,
    metrics,
    bus,
    sync,
    outbox,
    timeSync,
    commands,
    hub,
    terminals,
    feed,
    stream,
    presence,
    get mqtt() {
      return mqtt;
    },
    nodeId,
    webhooks,
    apiRoutes,
    async start() {
      const mqttDeps = {
        config,
        feed,
        store,
        clock,
        commands,
        log: logger,
        metrics,
        admin,
        announceAudit: (entries: readonly AuditEntry[]) => announceAudit(bus, entries),
      };
      await feed.start();
      const port = await http.listen(config.host, config.port);
      const devicePort = deviceHttp && config.devicePort !== null ? await deviceHttp.listen(config.host, config.devicePort) : null;
      // Like the listeners, before bootstrap: a busy MQTT port must not leave a location whose token nobody saw.
      if (config.mqtt === 'embedded') mqtt = await startMqttBridge({ ...mqttDeps, ...(limiter ? { limiter } : {}) });
      else if (config.mqtt !== 'off') {
        // An external broker is shared by the nodes: one of them publishes ("the feed's owner rule").
        await mqttLeader.start();
        mqtt = await startMqttBridge({
          ...mqttDeps,
          isLeader: () => mqttLeader.isLeader(),
          onLeader: (listener) => void mqttLeader.onChange((leader) => leader && listener()),
        });
      }
      // Only after a successful bind: a busy port must not create the location whose token nobody sees.
      // The first location and its token are BioGate's own change, recorded as the system's; not announced (nobody follows the
      // location's feed before it exists).
      const bootstrap =
        config.bootstrap === 'on'
          ? await actingAs(SYSTEM, undefined, () => bootstrapLocation(store, locations, nodeId, clock, logger))
          : null;
      hub.start();
      webhooks.start(feed);
      // Recovery first: sync ops a crash left owed, then the periodic sweep [DESIGN "Sync"].
      outbox.start();
      timeSync.start();
      presence.start();
      logger.info({ host: config.host, port, devicePort, tls: Boolean(tls), store: store.kind, engine: http.engine }, 'listening');
      if (bootstrap) options.announce?.(bootstrapBanner(bootstrap, { host: config.host, port, tls: Boolean(tls) }));
      return { port, devicePort, bootstrap };
    },
    drain() {
      draining = true;
    },
    close() {
      // Idempotent: a second call waits for the first shutdown instead of starting another.
      closing ??= (async () => {
        stopping = true;
        stream.close();
        await Promise.all([http.close(config.shutdownGraceS * 1000), deviceHttp?.close(config.shutdownGraceS * 1000)]);
        await mqttLeader.stop();
        await mqtt?.close();
        timeSync.stop();
        await presence.stop();
        await outbox.stop();
        await webhooks.stop();
        await hub.stop();
        await terminals.stop();
        await feed.stop();
        await store.close();
      })();
      return closing;
    },
  };
}
