/**
 * The location's live events over GET /api/stream (README "WebSocket stream"). Browsers cannot set
 * headers on a WebSocket, so the token travels as the subprotocol pair ['bearer', token]. After a
 * drop it reconnects, subscribes again (which resends the retained device state) and resumes after
 * the last sequence number seen, so nothing in between is missed.
 */

export interface StreamMessage {
  readonly topic?: string;
  readonly payload?: unknown;
  readonly seq?: number;
  readonly retained?: boolean;
  readonly op?: string;
}

export type StreamState = 'connecting' | 'live' | 'offline';

export interface StreamOptions {
  readonly token: string;
  readonly topics: readonly string[];
  readonly onMessage: (m: StreamMessage) => void;
  readonly onState?: (state: StreamState) => void;
}

export function openStream(options: StreamOptions): () => void {
  let ws: WebSocket | undefined;
  let lastSeq: number | undefined;
  let stopped = false;
  let delay = 500;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const connect = () => {
    options.onState?.('connecting');
    const url = `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/api/stream`;
    const socket = new WebSocket(url, ['bearer', options.token]);
    ws = socket;
    socket.onopen = () => {
      delay = 500;
      socket.send(JSON.stringify({ op: 'subscribe', topics: options.topics }));
      if (lastSeq !== undefined) socket.send(JSON.stringify({ op: 'resume', after: lastSeq }));
    };
    socket.onmessage = (event) => {
      let m: StreamMessage;
      try {
        m = JSON.parse(String(event.data)) as StreamMessage;
      } catch {
        return;
      }
      if (m.op === 'subscribed') options.onState?.('live');
      if (typeof m.seq === 'number' && m.topic !== undefined && !m.retained) lastSeq = Math.max(lastSeq ?? 0, m.seq);
      if (m.topic !== undefined) options.onMessage(m);
    };
    socket.onclose = () => {
      if (stopped) return;
      options.onState?.('offline');
      timer = setTimeout(connect, delay);
      delay = Math.min(delay * 2, 15_000);
    };
  };
  connect();
  return () => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    ws?.close(1000, 'page closed');
  };
}
