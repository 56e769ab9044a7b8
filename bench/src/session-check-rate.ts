import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hostSessionApp } from './host-session-app.js';
import type { Measurement } from './measure.js';

/**
 * `latchkey.sessions.check` calls per second in this process, no HTTP: jwt mode (signature only)
 * and token mode (a storage read; the activity write is throttled). `concurrency` calls are kept
 * in flight, as the HTTP rows keep that many connections busy.
 */
export async function sessionCheckRates(seconds: number, concurrency: number): Promise<Measurement[]> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'latchkey-bench-check-'));
  const host = await hostSessionApp(dataDir);
  try {
    const rows: Measurement[] = [];
    for (const mode of ['jwt', 'token'] as const) {
      const input =
        mode === 'jwt'
          ? { app_id: host.appId, session_jwt: host.session_jwt, mode }
          : { app_id: host.appId, session_token: host.session_token, mode };
      await host.latchkey.sessions.check(input); // keys loaded, connections open: not what is measured
      const latencies: number[] = [];
      let errors = 0;
      const end = performance.now() + seconds * 1000;
      const worker = async () => {
        while (performance.now() < end) {
          const start = performance.now();
          try {
            const auth = await host.latchkey.sessions.check(input);
            if (auth.user_id !== host.userId) errors++;
          } catch {
            errors++;
          }
          latencies.push(performance.now() - start);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      latencies.sort((a, b) => a - b);
      const at = (q: number) => Number((latencies[Math.floor(q * (latencies.length - 1))] ?? 0).toFixed(2));
      rows.push({
        name: `sessions.check, ${mode} mode (in process)`,
        requests_per_second: Math.round(latencies.length / seconds),
        p50_ms: at(0.5),
        p99_ms: at(0.99),
        errors,
        non_2xx: 0,
        total: latencies.length,
      });
    }
    return rows;
  } finally {
    await host.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
