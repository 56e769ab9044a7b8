import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createPasswordHasher, OWASP_ARGON2ID, type PasswordHasher } from '@latchkey/core';
import { hashPassword as betterAuthHash } from 'better-auth/crypto';
import { hostSessionApp } from './host-session-app.js';
import type { Measurement } from './measure.js';

const quantile = (sorted: number[], q: number) =>
  Number((sorted[Math.floor(q * (sorted.length - 1))] ?? 0).toFixed(1));

/** One call at a time for `seconds` (at least `minimum` calls): the cost of one hash. */
async function oneAtATime(
  name: string,
  seconds: number,
  op: () => Promise<unknown>,
  minimum = 20,
): Promise<Measurement> {
  await op();
  const latencies: number[] = [];
  const started = performance.now();
  while (performance.now() - started < seconds * 1000 || latencies.length < minimum) {
    const start = performance.now();
    await op();
    latencies.push(performance.now() - start);
  }
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    name,
    requests_per_second: Math.round((latencies.length / elapsed) * 10) / 10,
    p50_ms: quantile(latencies, 0.5),
    p95_ms: quantile(latencies, 0.95),
    p99_ms: quantile(latencies, 0.99),
    errors: 0,
    non_2xx: 0,
    total: latencies.length,
  };
}

/** `inFlight` calls kept going for `seconds`: a rate. */
async function inFlight(
  name: string,
  seconds: number,
  concurrency: number,
  op: () => Promise<unknown>,
): Promise<Measurement> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const start = performance.now();
        await op().catch(() => errors++);
        latencies.push(performance.now() - start);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    name,
    requests_per_second: Math.round((latencies.length / elapsed) * 10) / 10,
    p50_ms: quantile(latencies, 0.5),
    p95_ms: quantile(latencies, 0.95),
    p99_ms: quantile(latencies, 0.99),
    errors,
    non_2xx: 0,
    total: latencies.length,
  };
}

/** Keeps `count` verifications in flight until `stop` resolves. */
function burst(hasher: PasswordHasher, stored: string, count: number) {
  let running = true;
  const loops = Array.from({ length: count }, async () => {
    while (running) await hasher.verify('wrong password', stored).catch(() => {});
  });
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}

/**
 * Issue 32's hashing rows, in this process: an OWASP Argon2id hash one at a time (the p95
 * target is ≤ 250 ms), verifications on the pool at its width and with 50 in flight (the
 * primitive a password sign-in is compared with), Better Auth's own scrypt beside it, and how
 * the event loop and `sessions.check` fare while 50 verifications are in flight.
 */
export async function passwordHashingRates(
  seconds: number,
): Promise<{ rows: Measurement[]; summary: string[] }> {
  const hasher = createPasswordHasher();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'latchkey-bench-pw-'));
  const host = await hostSessionApp(dataDir);
  try {
    const stored = await hasher.hash('bench password');
    const engine = hasher.engine;
    const threads = hasher.threads;
    const { memoryKiB, iterations, parallelism } = OWASP_ARGON2ID;
    const costs = `m=${memoryKiB},t=${iterations},p=${parallelism}`;
    const rows: Measurement[] = [];
    rows.push(
      await oneAtATime(`password: Argon2id hash ${costs}, one at a time (${engine})`, seconds, () =>
        hasher.hash('pw'),
      ),
    );
    rows.push(
      await oneAtATime(
        `password: Better Auth hashPassword (scrypt N=16384,r=16,p=1), one at a time`,
        seconds,
        () => betterAuthHash('pw'),
      ),
    );
    rows.push(
      await inFlight(`primitive: Argon2id verify on the pool (${threads} in flight)`, seconds, threads, () =>
        hasher.verify('bench password', stored),
      ),
    );
    rows.push(
      await inFlight('password: Argon2id verify, 50 in flight (bounded queue)', seconds, 50, () =>
        hasher.verify('bench password', stored),
      ),
    );

    // The event loop and a session check, idle and then while 50 verifications are in flight.
    // Each check first waits for the event loop to turn, as a request arriving on a socket
    // does: a loop of promise callbacks alone would starve the workers' replies and the timers.
    const check = async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      return host.latchkey.sessions.check({ app_id: host.appId, session_jwt: host.session_jwt, mode: 'jwt' });
    };
    const loopDelay = async (label: string) => {
      const histogram = monitorEventLoopDelay({ resolution: 5 });
      histogram.enable();
      const row = await inFlight(`sessions.check jwt (in process), ${label}`, seconds, 10, check);
      histogram.disable();
      return { row, p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 };
    };
    const idle = await loopDelay('idle');
    const stop = burst(hasher, stored, 50);
    const busy = await loopDelay('while 50 password verifications are in flight');
    await stop();
    rows.push(idle.row, busy.row);
    const ratio = busy.row.requests_per_second / idle.row.requests_per_second;
    const hash = rows[0]!;
    const summary = [
      `Argon2id ${costs} on ${engine}: p50 ${hash.p50_ms} ms, p95 ${hash.p95_ms} ms (target ≤ 250 ms)`,
      `Better Auth scrypt (N=16384, r=16, p=1): p50 ${rows[1]!.p50_ms} ms, p95 ${rows[1]!.p95_ms} ms`,
      `verify rate: ${rows[2]!.requests_per_second}/s with ${threads} in flight, ${rows[3]!.requests_per_second}/s with 50 in flight (${rows[3]!.errors} refused)`,
      `sessions.check while 50 verifications are in flight: ${ratio.toFixed(2)}× idle (target ≥ 0.7)`,
      `event-loop delay p99: idle ${idle.p99.toFixed(1)} ms, during the burst ${busy.p99.toFixed(1)} ms (max ${busy.max.toFixed(1)} ms)`,
    ];
    return { rows, summary };
  } finally {
    await hasher.close();
    await host.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
