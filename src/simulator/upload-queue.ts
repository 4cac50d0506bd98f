// Uploads waiting for the server's acknowledgement. A device re-sends what was not acknowledged
// [PUSH-v2 §2.2]: the queue keeps each upload until a reply accepts it, sends in order, merges
// neighbours of the same table, and drops its oldest entries beyond MAX_QUEUE.

import type { HttpReply } from './http-transport.js';
import type { DeviceMemory } from './memory.js';
import { attlogLine, rtlogLine } from './records.js';
import { isAbort, SimulatorError } from './sim-error.js';
import type { SimAttendance, SimulatedDeviceStats } from './types.js';
import { mergeUploads, uploadRequest, uploadVerdict } from './uploads.js';
import type { RequestSpec, Upload, UploadVerdict } from './uploads.js';

/** uploads waiting for an acknowledgement; the oldest are dropped beyond this */
const MAX_QUEUE = 1000;
/** lines per merged upload request */
const MAX_LINES = 200;

export interface QueuedUpload {
  readonly upload: Upload;
  /** attendance record carried by this upload (to mark it uploaded) */
  readonly attendanceIndex: number;
  acked: boolean;
}

export interface UploadQueueOptions {
  readonly sn: string;
  readonly protocol: 'v2' | 'v3';
  /** OPERLOG as a packed upload [PUSH-v2 §6.4] */
  readonly packedOperlog: boolean;
  readonly memory: DeviceMemory;
  readonly stats: SimulatedDeviceStats;
  send(spec: RequestSpec): Promise<HttpReply>;
  /** uploads are sent only within an established session */
  established(): boolean;
  aborted(): boolean;
  /** count a failure in the device's stats */
  fail(err: unknown): void;
}

export class UploadQueue {
  readonly #opts: UploadQueueOptions;
  #queue: QueuedUpload[] = [];
  #flushing: Promise<void> | null = null;

  constructor(opts: UploadQueueOptions) {
    this.#opts = opts;
  }

  /** true while a drain is under way */
  get draining(): boolean {
    return this.#flushing !== null;
  }

  /** attendance records as this protocol uploads them: ATTLOG [PUSH-v2 §6.1] or rtlog [PUSH-v3 §10.2] */
  attendanceUpload(records: readonly SimAttendance[]): Upload {
    return this.#opts.protocol === 'v2'
      ? { kind: 'table', table: 'ATTLOG', lines: records.map(attlogLine) }
      : { kind: 'rtlog', lines: records.map(rtlogLine) };
  }

  /** Queue every stored attendance record again, MAX_LINES to an upload. */
  requeueAttendance(all: readonly SimAttendance[]): void {
    for (let i = 0; i < all.length; i += MAX_LINES) {
      const chunk = all.slice(i, i + MAX_LINES);
      this.enqueue(this.attendanceUpload(chunk), (chunk.at(-1) as SimAttendance).index);
    }
  }

  enqueue(upload: Upload, attendanceIndex = 0): QueuedUpload {
    const entry: QueuedUpload = { upload, attendanceIndex, acked: false };
    this.#queue.push(entry);
    if (this.#queue.length > MAX_QUEUE) {
      this.#queue.shift();
      this.#opts.stats.uploadsDropped++;
    }
    return entry;
  }

  /** Queue an upload and try to send it now; true when it was acknowledged. */
  async upload(upload: Upload): Promise<boolean> {
    const entry = this.enqueue(upload);
    await this.flush();
    return entry.acked;
  }

  /** Send what is queued. Resolves after one drain that started after the call, so a caller's own
   *  upload has had its attempt; a drain takes only what was queued when it began, so a steady
   *  stream of punches cannot hold a caller forever. */
  async flush(): Promise<void> {
    if (this.#flushing !== null) await this.#flushing;
    if (this.#flushing === null) {
      if (this.#queue.length === 0 || !this.#opts.established()) return;
      this.#flushing = this.#drain().finally(() => {
        this.#flushing = null;
      });
    }
    await this.#flushing;
  }

  /** Send queued uploads in order, merging neighbours of the same table; stop at the first failure
   *  and keep the rest for later: a device re-sends what was not acknowledged [PUSH-v2 §2.2]. */
  async #drain(): Promise<void> {
    let budget = this.#queue.length;
    while (budget > 0 && this.#queue.length > 0 && !this.#opts.aborted()) {
      const first = this.#queue[0] as QueuedUpload;
      const batch = [first];
      let merged = first.upload;
      for (const next of this.#queue.slice(1)) {
        const m = mergeUploads(merged, next.upload, MAX_LINES);
        if (m === undefined) break;
        merged = m;
        batch.push(next);
      }
      if ((await this.post(merged)) !== 'ok') return;
      // by identity: the queue may have dropped its oldest entries meanwhile
      const sent = new Set(batch);
      this.#queue = this.#queue.filter((e) => !sent.has(e));
      for (const entry of batch) {
        entry.acked = true;
        this.#opts.memory.markUploaded(entry.attendanceIndex);
      }
      budget -= batch.length;
    }
  }

  /** One attempt to deliver an upload, counted in the stats; the queue is not touched. */
  async post(upload: Upload): Promise<UploadVerdict> {
    const { stats } = this.#opts;
    let reply: HttpReply;
    try {
      reply = await this.#opts.send(uploadRequest(this.#opts.sn, upload, { packedOperlog: this.#opts.packedOperlog }));
    } catch (err) {
      if (!isAbort(err)) {
        stats.uploadsSent++;
        stats.uploadsFailed++;
        this.#opts.fail(err);
      }
      return 'http-error';
    }
    stats.uploadsSent++;
    const verdict = uploadVerdict(upload, reply.status, reply.text);
    if (verdict === 'ok') {
      stats.uploadsAcknowledged++;
    } else {
      stats.uploadsFailed++;
      this.#opts.fail(
        new SimulatorError(
          verdict === 'http-error' ? 'http' : 'protocol',
          `${upload.kind} upload answered HTTP ${reply.status}: ${JSON.stringify(reply.text.slice(0, 80))}`,
        ),
      );
    }
    return verdict;
  }
}
