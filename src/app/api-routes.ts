/**
 * The REST API's routes in the order they are matched, with the OpenAPI document and the docs page last
 * (the document describes every route before it). Only the composition root builds them.
 */
import { adminRoutes } from '../api/admin.js';
import { auditLogRoutes } from '../api/audit-log.js';
import { alertRoutes } from '../api/alerts.js';
import { attendanceRoutes } from '../api/attendance.js';
import { attendanceWriteRoutes } from '../api/attendance-write.js';
import { createManualAttendance } from '../attendance/manual.js';
import { timeCardRoutes } from '../api/time-cards.js';
import { attendanceHourlyRoutes } from '../api/attendance-hourly.js';
import { commandRoutes } from '../api/commands.js';
import { scenarioRoutes } from '../api/scenarios.js';
import { deviceRecordRoutes } from '../api/device-records.js';
import { accessRoutes } from '../api/access.js';
import { areaRoutes } from '../api/areas.js';
import { deviceRoutes } from '../api/devices.js';
import { docsRoutes } from '../api/docs.js';
import { doorEventRoutes } from '../api/door-events.js';
import { meRoutes } from '../api/me.js';
import { openApiRoute } from '../api/openapi.js';
import type { ApiRoute } from '../api/route.js';
import { userRoutes } from '../api/users.js';
import { photoRoutes } from '../api/photos.js';
import { createDecodeSlots } from '../users/photo-slots.js';
import { templateRoutes } from '../api/templates.js';
import { webhookRoutes } from '../api/webhooks.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import type { CommandQueue } from '../devices/command-queue.js';
import type { Hub } from '../devices/hub.js';
import type { CommandLifecycle } from '../devices/lifecycle.js';
import type { EventBus } from '../events/bus.js';
import type { LocationService } from '../locations/service.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { SyncOutbox } from '../sync/outbox.js';
import type { SyncQueue } from '../sync/queue.js';
import type { TerminalState } from '../sync/terminal-state.js';
import type { Audit } from '../sync/audit.js';
import { syncRoutes } from '../api/sync.js';
import { packageVersion } from '../version.js';
import type { DestinationPolicy } from '../webhooks/address-guard.js';

export interface ApiParts {
  readonly config: Config;
  readonly store: Store;
  readonly clock: Clock;
  readonly bus: EventBus;
  readonly log: Logger;
  readonly sync: SyncQueue;
  readonly audit: Audit;
  readonly outbox: SyncOutbox;
  readonly commands: CommandQueue;
  readonly lifecycle: CommandLifecycle;
  readonly locations: LocationService;
  readonly hub: Hub;
  readonly webhookPolicy: DestinationPolicy;
  readonly pokeWebhooks: () => void;
  readonly webhooksChanged: () => void;
  readonly terminals: TerminalState;
}

export function buildApiRoutes(p: ApiParts): readonly ApiRoute[] {
  const { config, store, clock, bus, log, sync } = p;
  const requireCommKey = config.requireCommKey === 'on';
  const routes: ApiRoute[] = [
    ...meRoutes(store, { devicePort: config.devicePort, requireCommKey }),
    ...auditLogRoutes(store, clock),
    ...alertRoutes(store, clock),
    ...userRoutes({ store, clock, sync, bus, outbox: p.outbox, log, quotaUsers: config.quotaUsers }),
    ...templateRoutes({ store, clock, sync }),
    ...photoRoutes({ store, clock, sync, quotaPhotoMb: config.quotaPhotoMb, decodes: createDecodeSlots() }),
    ...deviceRoutes({
      store,
      clock,
      bus,
      sync,
      commands: p.commands,
      lifecycle: p.lifecycle,
      log,
      onlineThresholdS: config.onlineThresholdS,
      liveLastSeen: (sn) => p.hub.presence.lastSeenOf(sn),
      onlineElsewhere: (sn) => p.hub.presence.onlineElsewhere(sn),
      requireCommKey,
      claim: config.deviceClaim,
      quotaDevices: config.quotaDevices,
      terminals: p.terminals,
    }),
    ...areaRoutes({ store, clock, bus, sync, log }),
    ...accessRoutes({ store, clock, bus, sync, log }),
    ...syncRoutes({ store, terminals: p.terminals, audit: p.audit }),
    ...commandRoutes({ store, clock, commands: p.commands, lifecycle: p.lifecycle }),
    ...scenarioRoutes({ store, queue: p.commands, lifecycle: p.lifecycle, now: () => clock.now(), sync, locations: p.locations }),
    ...attendanceRoutes(store, clock),
    ...attendanceWriteRoutes(createManualAttendance({ store, clock, bus, log })),
    ...timeCardRoutes(store, clock),
    ...attendanceHourlyRoutes(store, clock),
    ...deviceRecordRoutes({ store, flushExchanges: (sn) => p.hub.exchanges.flush({ sn }) }),
    ...doorEventRoutes(store),
    ...adminRoutes({
      store,
      locations: p.locations,
      clock,
      onlineThresholdS: config.onlineThresholdS,
      assignment: { store, sync, bus, log, requireCommKey, quotaDevices: config.quotaDevices },
    }),
    ...webhookRoutes({ store, clock, policy: p.webhookPolicy, poke: p.pokeWebhooks, changed: p.webhooksChanged }),
  ];
  routes.push(
    openApiRoute(() => routes, packageVersion()),
    ...docsRoutes(),
  );
  return routes;
}
