/**
 * The HTTP series of /metrics and the access log, fed by the HTTP server's `onResponse`: one counter and one
 * latency histogram per route × method × status (bounded: route patterns, known methods or "other",
 * three-digit statuses) and one access-log line per API request, with the caller's location.
 */
import type { HttpRequest, ResponseObserver } from '../http/types.js';
import type { AccessEntry } from '../log.js';
import { Counter, Histogram, type MetricsRegistry } from '../ops/metrics.js';

export function httpResponseRecorder(
  metrics: MetricsRegistry,
  accessLog: (entry: AccessEntry) => void,
  locationOf: WeakMap<HttpRequest, number>,
): ResponseObserver {
  const requests = metrics.register(new Counter('biogate_http_requests_total', 'HTTP requests by route, method and status'));
  const latency = metrics.register(
    new Histogram(
      'biogate_http_request_duration_seconds',
      'HTTP request latency by route',
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    ),
  );
  const requestSeries = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();
  return ({ route, method, status, seconds, request }) => {
    // The series of this route, method and status, looked up by one string (building the label keys per
    // request costs some 5 % of an idle poll).
    const k = `${route} ${method} ${status}`;
    let series = requestSeries.get(k);
    if (!series) {
      series = { count: requests.series({ route, method, status: String(status) }), time: latency.series({ route }) };
      requestSeries.set(k, series);
    }
    series.count.inc();
    series.time.observe(seconds);
    accessLog({ reqId: request?.id, method, route, status, seconds, location: request && locationOf.get(request) });
  };
}
