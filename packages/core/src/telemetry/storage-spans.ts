import type { Storage } from '../ports/storage.js';
import { inSpan } from './in-span.js';
import { SPAN_KIND, type TelemetryTracer } from './tracer.js';

/**
 * The storage with a span around each repo call (`latchkey.storage users.get`) and each
 * transaction, the calls inside a transaction nested under it. Only the repo and method are
 * recorded, never an argument or a result: those are where tokens, hashes and keys travel.
 * A proxy, so repos the adapter adds for other capabilities are covered too; built only when a
 * tracer is given.
 */
export function tracedStorage<S extends Storage>(storage: S, tracer: TelemetryTracer): S {
  // By the repo object itself: an adapter whose getter hands out a new repo gets a new proxy.
  const repos = new WeakMap<object, object>();
  const transaction: Storage['transaction'] = (fn) =>
    inSpan(tracer, 'latchkey.storage transaction', { kind: SPAN_KIND.internal }, () =>
      storage.transaction((tx) => fn(tracedStorage(tx, tracer))),
    );
  return new Proxy(storage, {
    get(target, key) {
      if (key === 'transaction') return transaction;
      const value: unknown = Reflect.get(target, key);
      if (typeof value === 'function') return value.bind(target);
      if (typeof value !== 'object' || value === null || typeof key !== 'string') return value;
      let repo = repos.get(value);
      if (repo === undefined) {
        repo = tracedRepo(value, key, tracer);
        repos.set(value, repo);
      }
      return repo;
    },
  });
}

function tracedRepo(repo: object, repoName: string, tracer: TelemetryTracer): object {
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(repo, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      let method = methods.get(key);
      if (method === undefined) {
        const name = `latchkey.storage ${repoName}.${key}`;
        const options = {
          kind: SPAN_KIND.internal,
          attributes: { 'latchkey.storage.repo': repoName, 'latchkey.storage.method': key },
        };
        method = (...args: unknown[]) => inSpan(tracer, name, options, () => value.apply(target, args));
        methods.set(key, method);
      }
      return method;
    },
  });
}
