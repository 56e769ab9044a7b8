import type { EventEmitter } from 'node:events';
import autocannon, { type Options } from 'autocannon';

export interface Target {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A fixed body, or one per request (for single-use inputs such as passcodes). */
  body?: unknown;
  nextBody?: () => unknown;
  /** A path (and query) per request, for single-use inputs sent in the URL. */
  nextPath?: () => string;
  /** Run a fixed number of requests instead of for the duration (single-use inputs run out). */
  amount?: number;
  /**
   * A flow of several requests in place of one (a full sign-in: send, read the code, verify),
   * run `amount` times, `connections` at once; it throws when any step's answer is wrong. The
   * row's rate is flows per second and its latencies a whole flow's.
   */
  flow?: (i: number) => Promise<void>;
}

export interface Measurement {
  name: string;
  requests_per_second: number;
  p50_ms: number;
  /** Set by rows whose target is a p95 (password hashing). */
  p95_ms?: number;
  p99_ms: number;
  errors: number;
  non_2xx: number;
  total: number;
  /** Set when measured in rounds: the mean over rounds of this row ÷ the bare Express row of the same round. */
  vs_bare_express?: number;
  /** Hono and Fastify rows: the mean over rounds of this row ÷ its framework's bare row of the same round. */
  vs_bare_framework?: number;
}

export async function measure(
  target: Target,
  options: { duration: number; connections: number },
): Promise<Measurement> {
  if (target.flow) return measureFlow(target.name, target.flow, target.amount ?? 100, options.connections);
  const headers = { 'content-type': 'application/json', ...target.headers };
  const options_: Options = {
    url: target.url,
    connections: options.connections,
    ...(target.amount ? { amount: target.amount } : { duration: options.duration }),
    method: target.method ?? 'GET',
    headers,
    ...(target.body === undefined ? {} : { body: JSON.stringify(target.body) }),
    ...(target.nextBody || target.nextPath
      ? {
          requests: [
            {
              setupRequest: (req) => ({
                ...req,
                ...(target.nextBody ? { body: JSON.stringify(target.nextBody()) } : {}),
                ...(target.nextPath ? { path: target.nextPath() } : {}),
              }),
            },
          ],
        }
      : {}),
  };
  // autocannon notices a fixed amount is done only at its next one-second sample, and its
  // duration says so (299 requests answered in 1.2 s read as 2 s, 150/s): such a row is its total
  // over the time from the run's start to its last answer, timed here.
  const run = autocannon(options_) as Promise<autocannon.Result> & EventEmitter;
  let started = performance.now();
  let lastAnswer = started;
  run.on('start', () => {
    started = performance.now();
  });
  run.on('response', () => {
    lastAnswer = performance.now();
  });
  const result = await run;
  return {
    name: target.name,
    requests_per_second: Math.round(
      target.amount
        ? result.requests.total / Math.max((lastAnswer - started) / 1000, 0.001)
        : result.requests.average,
    ),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non_2xx: result.non2xx,
    total: result.requests.total,
  };
}

async function measureFlow(
  name: string,
  flow: (i: number) => Promise<void>,
  amount: number,
  connections: number,
): Promise<Measurement> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < amount) {
      const i = next++;
      const begun = performance.now();
      try {
        await flow(i);
        latencies.push(performance.now() - begun);
      } catch (err) {
        if (errors++ === 0) console.error(`  ${name}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(connections, amount) }, worker));
  const seconds = Math.max((performance.now() - started) / 1000, 0.001);
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return {
    name,
    requests_per_second: Math.round(latencies.length / seconds),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
    errors,
    non_2xx: 0,
    total: latencies.length,
  };
}

const BARE = 'bare Express';
export const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The rows in `rounds` rounds, forward then backward, after a one-second warm-up of each
 * (a cold JIT and an empty pool otherwise favour whichever row runs later). On a shared machine the
 * load drifts within a run: each row's ratio is taken against the bare Express row of its own round,
 * then averaged. Rows with single-use inputs (`amount`) run once, in the first round.
 */
export async function measureInRounds(
  targets: Target[],
  options: { duration: number; connections: number; rounds: number },
): Promise<Measurement[]> {
  const repeatable = targets.filter(
    (t) => t.amount === undefined && t.nextBody === undefined && t.nextPath === undefined && !t.flow,
  );
  for (const target of repeatable) await measure(target, { ...options, duration: 1 });
  const byName = new Map<string, Measurement[]>();
  const ratios = new Map<string, number[]>();
  for (let round = 0; round < Math.max(1, options.rounds); round++) {
    // Forward, then backward: a load that drifts steadily through the run weighs on every row alike.
    const order = (round % 2 === 0 ? targets : [...targets].reverse()).filter(
      (t) => round === 0 || repeatable.includes(t),
    );
    const measured: Measurement[] = [];
    for (const target of order) {
      process.stdout.write(`  ${target.name}${options.rounds > 1 ? ` (round ${round + 1})` : ''} …\n`);
      measured.push(await measure(target, options));
    }
    const bare = measured.find((m) => m.name === BARE)?.requests_per_second;
    for (const m of measured) {
      byName.set(m.name, [...(byName.get(m.name) ?? []), m]);
      if (bare) ratios.set(m.name, [...(ratios.get(m.name) ?? []), m.requests_per_second / bare]);
    }
  }
  return targets.map((target) => ({
    ...combineRounds(target.name, byName.get(target.name)!),
    ...(ratios.has(target.name) ? { vs_bare_express: mean(ratios.get(target.name)!) } : {}),
  }));
}

/** One row from a target's rounds: the mean rate, the worst latencies, every error counted. */
export function combineRounds(name: string, runs: readonly Measurement[]): Measurement {
  return {
    name,
    requests_per_second: Math.round(mean(runs.map((r) => r.requests_per_second))),
    p50_ms: Math.max(...runs.map((r) => r.p50_ms)),
    p99_ms: Math.max(...runs.map((r) => r.p99_ms)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    non_2xx: runs.reduce((n, r) => n + r.non_2xx, 0),
    total: runs.reduce((n, r) => n + r.total, 0),
  };
}
