import autocannon from 'autocannon';
import { startChild } from './child.js';

interface HostInfo {
  url: string;
  app_id: string;
  user_id: string;
  secret: string;
  state: string;
}

const post = async (url: string, body: unknown = {}) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url} → ${res.status} ${await res.text()}`);
  return res.json() as Promise<Record<string, string>>;
};
const statusOf = async (url: string, jwt: string) =>
  (await fetch(`${url}/jwt/me`, { headers: { authorization: `Bearer ${jwt}` } })).status;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;

/**
 * Issue 34's revocation row: two host processes on one Postgres, both serving a jwt-mode route
 * under autocannon's load; `count` times, a session B has already accepted is revoked through A,
 * and B is polled (every 2 ms) until it refuses it. Reports the delay from A's answer to B's
 * first refusal (p50, p99, max) and, afterwards, how many of the revoked sessions either process
 * still accepts (the target: 0). Postgres only: PGlite is one process's database.
 */
export async function revocationLatency(options: {
  count: number;
  connections: number;
}): Promise<{ summary: string[]; p99_ms: number; accepted_after: number } | undefined> {
  if (!process.env.DATABASE_URL) return undefined;
  const a = await startChild<HostInfo>('./revocation-host-server.ts', []);
  const b = await startChild<HostInfo>('./revocation-host-server.ts', [], {
    BENCH_APP_ID: a.info.app_id,
    BENCH_USER_ID: a.info.user_id,
    BENCH_SECRET: a.info.secret,
  });
  const loads: autocannon.Instance[] = [];
  try {
    const steady = (await post(`${a.info.url}/issue`)).session_jwt as string;
    // Both processes busy with checks of a live session the whole time.
    for (const host of [a, b])
      loads.push(
        autocannon(
          {
            url: `${host.info.url}/jwt/me`,
            connections: options.connections,
            duration: 3600,
            headers: { authorization: `Bearer ${steady}` },
          },
          // With a callback autocannon hands back its instance, which `stop()` ends.
          () => {},
        ),
      );
    await new Promise((r) => setTimeout(r, 1000));
    const delays: number[] = [];
    const revoked: string[] = [];
    for (let i = 0; i < options.count; i++) {
      const s = await post(`${a.info.url}/issue`);
      const jwt = s.session_jwt as string;
      if ((await statusOf(b.info.url, jwt)) !== 200) throw new Error('B refused a live session');
      await post(`${a.info.url}/revoke`, { session_id: s.session_id });
      const revokedAt = performance.now();
      revoked.push(jwt);
      for (;;) {
        if ((await statusOf(b.info.url, jwt)) === 401) break;
        if (performance.now() - revokedAt > 10_000) throw new Error('B still accepts after 10 s');
        await new Promise((r) => setTimeout(r, 2));
      }
      delays.push(performance.now() - revokedAt);
    }
    let acceptedAfter = 0;
    for (const jwt of revoked)
      for (const host of [a, b]) if ((await statusOf(host.info.url, jwt)) === 200) acceptedAfter += 1;
    const sorted = [...delays].sort((x, y) => x - y);
    const ms = (v: number) => Number(v.toFixed(1));
    const [p50, p99, max] = [percentile(sorted, 50), percentile(sorted, 99), sorted.at(-1) as number];
    return {
      p99_ms: ms(p99),
      accepted_after: acceptedAfter,
      summary: [
        `revoked through A, refused by B (${options.count} sessions, both under load, states ${a.info.state}/${b.info.state}): p50 ${ms(p50)} ms, p99 ${ms(p99)} ms, max ${ms(max)} ms (target p99 ≤ 1000 ms)`,
        `revoked sessions either process accepted afterwards: ${acceptedAfter} of ${options.count * 2} checks (target 0)`,
      ],
    };
  } finally {
    for (const load of loads) load.stop();
    await Promise.all([a.stop(), b.stop()]);
  }
}
