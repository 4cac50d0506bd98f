/**
 * Files and firmware: [COMMANDS §4.22] `/iclock/file` serves only a file BioGate offered to this
 * serial number, the url of one of its sent firmware-upgrade commands [API-CONTRACT §6]. Method 1
 * content is base64 text; a download that fails fails the command.
 */
import { textReply } from '../actor-types.js';
import { FirmwareError } from '../firmware.js';
import { finishCommand } from '../results.js';
import type { Handler } from './context.js';

export const fileRequest: Handler<'fileRequest'> = async (ctx, state, event) => {
  const { url } = event;
  const device = state.device;
  const location = await ctx.session.location(device);
  if (!device || !location) return textReply(404, 'not found');
  const offered = await ctx.store.commands.sentOf(location.id, ctx.sn, 'firmware-upgrade', 20);
  const command = offered.find((c) => c.params?.['url'] === url);
  if (!command) {
    ctx.log.warn({ url }, 'file request for a url BioGate did not offer to this device refused');
    return textReply(404, 'not found');
  }
  const params = command.params as { url: string; checksum: string; size: number };
  try {
    const file = await ctx.firmware.fetch(params);
    ctx.log.info({ id: command.id, bytes: file.size }, 'firmware served');
    return textReply(200, file.base64); // the cache's one encoded copy, shared by every device
  } catch (err) {
    if (!(err instanceof FirmwareError)) throw err;
    ctx.log.warn({ id: command.id, err: err.message }, 'firmware download failed');
    await finishCommand(ctx.results, command, { status: 'failed', error_message: err.message });
    return textReply(404, 'not found');
  }
};
