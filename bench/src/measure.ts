import autocannon, { type Options } from 'autocannon';

export interface Target {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A fixed body, or one per request (for single-use inputs such as passcodes). */
  body?: unknown;
  nextBody?: () => unknown;
  /** Run a fixed number of requests instead of for the duration (single-use inputs run out). */
  amount?: number;
}

export interface Measurement {
  name: string;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non_2xx: number;
  total: number;
}

export async function measure(
  target: Target,
  options: { duration: number; connections: number },
): Promise<Measurement> {
  const headers = { 'content-type': 'application/json', ...target.headers };
  const options_: Options = {
    url: target.url,
    connections: options.connections,
    ...(target.amount ? { amount: target.amount } : { duration: options.duration }),
    method: target.method ?? 'GET',
    headers,
    ...(target.body === undefined ? {} : { body: JSON.stringify(target.body) }),
    ...(target.nextBody
      ? { requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(target.nextBody!()) }) }] }
      : {}),
  };
  const result = await autocannon(options_);
  return {
    name: target.name,
    requests_per_second: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non_2xx: result.non2xx,
    total: result.requests.total,
  };
}
