import type { z } from 'zod';
import type { ErrorTable } from './errors.js';
import type { EventHooks } from './events/hooks.js';
import type { HttpApp } from './http/env.js';
import type { Kernel } from './kernel.js';
import type { latchkeyOptionsSchema } from './options.js';
import type { Storage } from './ports/storage.js';

/** `createLatchkey`'s options once parsed, defaults applied. */
export type ResolvedOptions = z.output<typeof latchkeyOptionsSchema>;

/** No repos beyond Storage's own. */
type NoRepos = Record<never, never>;

/** What a capability's service factory is given. */
export interface CapabilityContext<
  Needs extends readonly AnyCapability[] = [],
  Repos extends object = NoRepos,
> {
  /** The ports; `kernel.storage` also holds the repos the capability declared beyond Storage's own. */
  kernel: Kernel & { storage: Storage & Repos };
  /** The services of the capabilities listed in `needs`, built before this one. */
  services: ServicesOf<Needs>;
  /** The options but `storage`: a service reaches storage through the kernel, which records events. */
  options: Omit<ResolvedOptions, 'storage'>;
  /** In-process event listeners (what `latchkey.events.on` registers). */
  hooks: EventHooks;
}

/**
 * One capability: a folder's service, routes, storage and error types, described in one object
 * (its `capability.ts`). `createLatchkey` builds the services, mounts the routes and types
 * `Latchkey` from a list of these (capabilities.ts); a capability is added by adding one.
 */
export interface Capability<
  Name extends string = string,
  Service = unknown,
  Needs extends readonly AnyCapability[] = [],
  Repos extends object = NoRepos,
> {
  /** The key of its service on the Latchkey object. */
  readonly name: Name;
  /** The capabilities whose services it is built from; each is built first. */
  readonly needs: Needs;
  /** The Storage repos it owns (their records, SQL and migrations live in each storage adapter). */
  readonly storage: readonly NoInfer<keyof Storage | (keyof Repos & string)>[];
  /**
   * The error types it alone raises, with their status and message: its folder's errors.ts.
   * `npm run regenerate` copies core's into the one catalogue (errors.ts), so a capability outside
   * core raises the catalogue's types and declares none.
   */
  readonly errors?: ErrorTable;
  // Methods, not function properties, so that each capability is an AnyCapability.
  service(context: CapabilityContext<Needs, Repos>): Service;
  /** Mounts its routes, each declaring its policy (http/route-policy.ts). */
  routes?(app: HttpApp, service: NoInfer<Service>): void;
}

/**
 * A capability of any service: what a list of them holds. Its methods take `never`, so every
 * capability is one (methods compare their parameters both ways).
 */
export interface AnyCapability {
  readonly name: string;
  readonly needs: readonly AnyCapability[];
  readonly storage: readonly string[];
  readonly errors?: ErrorTable;
  service(context: never): unknown;
  routes?(app: HttpApp, service: never): void;
}

/** The service a capability builds. */
export type ServiceOf<C> = C extends { service(context: never): infer S } ? S : never;

/** The services of a list of capabilities, each under its name, in the list's order. */
export type ServicesOf<L extends readonly AnyCapability[]> = L extends readonly [
  infer Head extends AnyCapability,
  ...infer Rest extends readonly AnyCapability[],
]
  ? { [K in Head['name']]: ServiceOf<Head> } & ServicesOf<Rest>
  : unknown;

/** The repos beyond Storage's own that a list of capabilities needs from the storage adapter. */
export type ReposOf<L extends readonly AnyCapability[]> = L extends readonly [
  infer Head,
  ...infer Rest extends readonly AnyCapability[],
]
  ? (Head extends { service(context: CapabilityContext<infer _N, infer R>): unknown } ? R : unknown) &
      ReposOf<Rest>
  : unknown;

/** Declares a capability with its types inferred: the name, the service, what it needs. */
export function defineCapability<
  const Name extends string,
  Service,
  const Needs extends readonly AnyCapability[] = [],
  Repos extends object = NoRepos,
>(capability: Capability<Name, Service, Needs, Repos>): Capability<Name, Service, Needs, Repos> {
  return capability;
}

/**
 * Builds the service of each capability after those it needs, whatever the list's order (the
 * list's order is the order routes are mounted in and the OpenAPI document lists them).
 */
export function buildServices(
  capabilities: readonly AnyCapability[],
  context: Omit<CapabilityContext, 'services'>,
): Record<string, unknown> {
  const byName = new Map<string, AnyCapability>();
  for (const c of capabilities) {
    if (byName.has(c.name)) throw new TypeError(`Latchkey: two capabilities are named "${c.name}".`);
    byName.set(c.name, c);
  }
  const built: Record<string, unknown> = {};
  const building = new Set<string>();
  const build = (c: AnyCapability): unknown => {
    if (c.name in built) return built[c.name];
    if (building.has(c.name))
      throw new TypeError(
        `Latchkey: capability "${c.name}" needs itself through ${[...building].join(' → ')}.`,
      );
    building.add(c.name);
    const services: Record<string, unknown> = {};
    for (const need of c.needs) {
      // By name: a host may list its own capability in place of a built-in one it depends on.
      const provider = byName.get(need.name);
      if (!provider)
        throw new TypeError(
          `Latchkey: capability "${c.name}" needs "${need.name}", which is not in the list.`,
        );
      services[need.name] = build(provider);
    }
    const missing = c.storage.filter((repo) => !(repo in context.kernel.storage));
    if (missing.length > 0)
      throw new TypeError(
        `Latchkey: capability "${c.name}" needs the storage repo(s) ${missing.join(', ')}, which the storage adapter lacks.`,
      );
    built[c.name] = c.service({ ...context, services } as never);
    building.delete(c.name);
    return built[c.name];
  };
  for (const c of capabilities) build(c);
  return built;
}
