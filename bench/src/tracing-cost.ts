import { createLatchkey, type TelemetryTracer } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { type Measurement, mean } from './measure.js';

/**
 * What tracing costs a request: `latchkey.fetch` of `GET /v1/auth/users/{id}` in this process
 * (memory storage, so Latchkey's own work is all there is and any overhead shows at its largest),
 * `concurrency` requests in flight, under four set-ups in alternating rounds:
 * - no tracer (the baseline), twice: the second run is the noise between two identical rows;
 * - OpenTelemetry's API tracer with no SDK registered (every span a no-op);
 * - no tracer, but the SDK's AsyncLocalStorage context enabled (what a host with the SDK pays
 *   on every promise anyway);
 * - the SDK's tracer with that context, every span recorded and handed to an exporter that drops
 *   it (the spans themselves, without any export I/O).
 * Each row's `vs_untraced` is the baseline's CPU time per request ÷ its own in the same round
 * (a throughput ratio that the other processes on a shared machine disturb far less than the
 * request rate, which they halve and double within seconds), the median over the rounds:
 * many short rounds, alternating in order.
 */
export async function tracingCostRates(
  seconds: number,
  concurrency: number,
  rounds: number,
): Promise<Array<Measurement & { cpu_us_per_request: number; vs_untraced: number }>> {
  const dropped: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(dropped)] });
  const contextManager = new AsyncLocalStorageContextManager();
  const setups: Array<{ name: string; tracer?: TelemetryTracer; sdk?: boolean }> = [
    { name: 'no tracer' },
    { name: 'no tracer, again (A/A: the noise)' },
    { name: 'OpenTelemetry API, no SDK (no-op spans)', tracer: trace.getTracer('latchkey') },
    // What a host with the SDK pays anyway, Latchkey traced or not: async context on every promise.
    { name: "no tracer, the SDK's async context on", sdk: true },
    { name: 'OpenTelemetry SDK, spans recorded', tracer: provider.getTracer('latchkey'), sdk: true },
  ];
  const targets = await Promise.all(setups.map((s) => target(s.tracer)));
  const runs = new Map<string, Array<{ m: Measured; ratio: number }>>();
  for (let round = 0; round < Math.max(1, rounds); round++) {
    const order = setups.map((s, i) => ({ ...s, run: targets[i]! }));
    if (round % 2 === 1) order.reverse();
    const measured: Array<{ name: string; m: Measured }> = [];
    for (const setup of order) {
      process.stdout.write(`  tracing cost: ${setup.name} (round ${round + 1}) …\n`);
      if (setup.sdk) context.setGlobalContextManager(contextManager.enable());
      try {
        await drive(setup.run, 0.2, concurrency); // warm-up
        measured.push({ name: setup.name, m: await drive(setup.run, seconds, concurrency) });
      } finally {
        if (setup.sdk) context.disable();
      }
    }
    const base = measured.find((x) => x.name === 'no tracer')!.m.cpu_us_per_request;
    for (const { name, m } of measured)
      runs.set(name, [...(runs.get(name) ?? []), { m, ratio: base / m.cpu_us_per_request }]);
  }
  await provider.shutdown();

  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  return setups.map(({ name }) => {
    const rs = runs.get(name)!;
    return {
      name: `latchkey.fetch GET users/{id} (in process), ${name}`,
      requests_per_second: Math.round(mean(rs.map((r) => r.m.requests_per_second))),
      p50_ms: Math.max(...rs.map((r) => r.m.p50_ms)),
      p99_ms: Math.max(...rs.map((r) => r.m.p99_ms)),
      errors: rs.reduce((n, r) => n + r.m.errors, 0),
      non_2xx: rs.reduce((n, r) => n + r.m.non_2xx, 0),
      total: rs.reduce((n, r) => n + r.m.total, 0),
      cpu_us_per_request: Number(median(rs.map((r) => r.m.cpu_us_per_request)).toFixed(1)),
      vs_untraced: Number(median(rs.map((r) => r.ratio)).toFixed(3)),
    };
  });
}

/** A Latchkey with one App and one user; the request to repeat, as a function. */
async function target(tracer: TelemetryTracer | undefined) {
  const latchkey = createLatchkey({
    storage: memoryStorage(),
    secret: 'bench-secret-that-is-long-enough-0123456789',
    ...(tracer ? { tracer } : {}),
  });
  const app = await latchkey.apps.create({ name: 'Tracing bench' });
  const { user_id } = await latchkey.users.create(app.app_id, { email: 'traced@example.com' });
  const url = `http://latchkey.bench/v1/auth/users/${user_id}`;
  const headers = { authorization: `Bearer ${app.secret_key}` };
  return async (): Promise<number> => {
    const res = await latchkey.fetch(new Request(url, { headers }));
    await res.arrayBuffer();
    return res.status;
  };
}

type Measured = Measurement & { cpu_us_per_request: number };

async function drive(run: () => Promise<number>, seconds: number, concurrency: number): Promise<Measured> {
  const latencies: number[] = [];
  const cpuBefore = process.cpuUsage();
  let errors = 0;
  let non2xx = 0;
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const start = performance.now();
      try {
        if ((await run()) !== 200) non2xx++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - start);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Number((latencies[Math.floor(q * (latencies.length - 1))] ?? 0).toFixed(3));
  return {
    cpu_us_per_request: (cpu.user + cpu.system) / Math.max(1, latencies.length),
    name: '',
    requests_per_second: Math.round(latencies.length / seconds),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
    errors,
    non_2xx: non2xx,
    total: latencies.length,
  };
}

// `npm run bench:tracing`: these rows alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await tracingCostRates(
    Number(process.env.BENCH_DURATION ?? 1),
    Number(process.env.BENCH_CONNECTIONS ?? 10),
    Number(process.env.BENCH_ROUNDS ?? 12),
  );
  console.table(
    Object.fromEntries(
      rows.map((r) => [
        r.name,
        {
          'req/s': r.requests_per_second,
          'p50 ms': r.p50_ms,
          'CPU µs/req': r.cpu_us_per_request,
          'vs untraced': r.vs_untraced,
        },
      ]),
    ),
  );
}
