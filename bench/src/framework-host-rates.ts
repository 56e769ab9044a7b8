import { type Child, startChild } from './child.js';
import { combineRounds, type Measurement, mean, measure, type Target } from './measure.js';

interface HostInfo {
  url: string;
  session_jwt: string;
  session_token: string;
}

const FRAMEWORKS = [
  { id: 'hono', label: 'Hono' },
  { id: 'fastify', label: 'Fastify' },
] as const;

/**
 * Issue 36's framework rows: for Hono and Fastify, a host route behind the package's
 * `requireSession` (jwt mode, then token mode) ÷ the same framework's bare route, each server its
 * own process (`framework-servers.ts`) under autocannon from this one, as the Express host rows.
 * Beside them, a route of the bare process behind a middleware that only sets a value: what the
 * framework itself charges for any middleware. The rows run in rounds, forward then backward, each framework's bare row beside its protected
 * ones; a row's `vs_bare_framework` is the mean of its ratios to its framework's bare row of the
 * same round. `only` (BENCH_ONLY) picks frameworks by row name; none chosen, nothing starts.
 */
export async function frameworkHostRates(options: {
  duration: number;
  connections: number;
  rounds: number;
  only?: RegExp;
}): Promise<{ rows: Measurement[]; summary: string[] }> {
  const rowNames = (label: string) => ({
    bare: `bare ${label}`,
    middleware: `${label} route, no-op middleware`,
    jwt: `host ${label} route, requireSession (jwt mode)`,
    token: `host ${label} route, requireSession (token mode)`,
  });
  const chosen = FRAMEWORKS.filter(
    ({ label }) => !options.only || Object.values(rowNames(label)).some((name) => options.only!.test(name)),
  );
  if (chosen.length === 0) return { rows: [], summary: [] };

  const children: Child<unknown>[] = [];
  try {
    const groups: { bare: Target; protected: Target[] }[] = [];
    for (const { id, label } of chosen) {
      const bare = await startChild<{ url: string }>('./framework-servers.ts', [id, 'bare']);
      children.push(bare);
      const host = await startChild<HostInfo>('./framework-servers.ts', [id, 'host']);
      children.push(host);
      const names = rowNames(label);
      groups.push({
        bare: { name: names.bare, url: `${bare.info.url}/bare` },
        protected: [
          // What the framework charges for any middleware before Latchkey's: the floor of the two below.
          { name: names.middleware, url: `${bare.info.url}/middleware` },
          {
            name: names.jwt,
            url: `${host.info.url}/jwt/me`,
            headers: { authorization: `Bearer ${host.info.session_jwt}` },
          },
          {
            name: names.token,
            url: `${host.info.url}/token/me`,
            headers: { authorization: `Bearer ${host.info.session_token}` },
          },
        ],
      });
    }
    const targets = groups.flatMap((g) => [g.bare, ...g.protected]);
    const bareOf = new Map(groups.flatMap((g) => [g.bare, ...g.protected].map((t) => [t.name, g.bare.name])));
    // A warm-up of each, as measureInRounds does: a cold JIT favours whichever row runs later.
    for (const target of targets) await measure(target, { ...options, duration: 1 });
    const runs = new Map<string, Measurement[]>();
    const ratios = new Map<string, number[]>();
    for (let round = 0; round < Math.max(1, options.rounds); round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      const measured = new Map<string, Measurement>();
      for (const target of order) {
        process.stdout.write(`  ${target.name}${options.rounds > 1 ? ` (round ${round + 1})` : ''} …\n`);
        measured.set(target.name, await measure(target, options));
      }
      for (const [name, m] of measured) {
        runs.set(name, [...(runs.get(name) ?? []), m]);
        const bare = measured.get(bareOf.get(name)!)!.requests_per_second;
        ratios.set(name, [...(ratios.get(name) ?? []), m.requests_per_second / bare]);
      }
    }
    const rows = targets.map(
      (target): Measurement => ({
        ...combineRounds(target.name, runs.get(target.name)!),
        vs_bare_framework: Number(mean(ratios.get(target.name)!).toFixed(3)),
      }),
    );
    const summary = groups.flatMap((g) =>
      g.protected.map((t) => {
        const row = rows.find((r) => r.name === t.name)!;
        const perRound = ratios.get(t.name)!.map((r) => r.toFixed(2));
        return `${t.name}: ${row.vs_bare_framework}× ${g.bare.name} (rounds ${perRound.join(', ')})`;
      }),
    );
    return { rows, summary };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}
