// The part of autocannon 9's programmatic API the Node fallback generator uses (it ships no types).
declare module 'autocannon' {
  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    headers?: Record<string, string>;
    method?: string;
    requests?: (Request & { setupRequest?: (req: Request) => Request })[];
  }
  interface Histogram {
    average: number;
    p50: number;
    p90: number;
    p99: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
