/**
 * The dispatcher: one decoded device event to the handler of its family (session and registration,
 * uploads, results, files and firmware). Exhaustive: a new kind of event does not compile until it
 * has a handler.
 */
import type { DeviceEvent } from '../../../protocols/index.js';
import type { Handled, HandlerContext, RequestState } from './context.js';
import { fileRequest } from './files.js';
import { attendancePhotos } from './photos.js';
import { commandResults, doorStates, queryCount, queryOptions, remoteUserLookup } from './results.js';
import { configRequest, handshake, heartbeat, keepAlive, options, registration, timeRequest } from './session.js';
import { accessRows, errorLogs, notKept, punches, rawRecords, templates, unknownRecords, unknownTable, users } from './uploads.js';

export function dispatch(ctx: HandlerContext, state: RequestState, event: DeviceEvent): Promise<Handled> | Handled {
  switch (event.type) {
    case 'handshake':
      return handshake(ctx, state, event);
    case 'registration':
      return registration(ctx, state, event);
    case 'configRequest':
      return configRequest(ctx, state, event);
    case 'options':
      return options(ctx, state, event);
    case 'heartbeat':
      return heartbeat(ctx, state, event);
    case 'ping':
    case 'keyExchange':
    case 'serviceControl':
      return keepAlive(ctx, state, event);
    case 'timeRequest':
      return timeRequest(ctx, state, event);
    case 'attendance':
    case 'doorEvents':
    case 'accessRecords':
      return punches(ctx, state, event);
    case 'fingerprintTemplates':
    case 'faceTemplates':
    case 'fingerVeinTemplates':
    case 'bioTemplates':
      return templates(ctx, state, event);
    case 'users':
      return users(ctx, state, event);
    case 'userRights':
    case 'timezoneRows':
    case 'holidayRows':
      return accessRows(ctx, state, event);
    case 'attendancePhotos':
      return attendancePhotos(ctx, state, event);
    case 'userPhotos':
    case 'bioPhotos':
    case 'operationLogs':
      return notKept(ctx, state, event);
    case 'errorLogs':
      return errorLogs(ctx, state, event);
    case 'unknownRecords':
      return unknownRecords(ctx, state, event);
    case 'rawRecords':
      return rawRecords(ctx, state, event);
    case 'unknownTable':
      return unknownTable(ctx, state, event);
    case 'commandResults':
      return commandResults(ctx, state, event);
    case 'queryOptions':
      return queryOptions(ctx, state, event);
    case 'queryCount':
      return queryCount(ctx, state, event);
    case 'doorStates':
      return doorStates(ctx, state, event);
    case 'remoteUserLookup':
      return remoteUserLookup(ctx, state, event);
    case 'fileRequest':
      return fileRequest(ctx, state, event);
  }
}
