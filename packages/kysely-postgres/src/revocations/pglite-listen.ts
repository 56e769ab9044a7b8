import type { PGlite } from '@electric-sql/pglite';
import type { Listen } from './shared-channel.js';

/**
 * LISTEN on embedded PGlite, through its own `listen`: in process, so it never breaks. `exclusive`
 * runs the LISTEN while the storage holds PGlite's one connection, so it never lands inside a
 * transaction another caller has open (where a rollback would undo it).
 */
export function pgliteListen(pglite: PGlite, exclusive: <T>(fn: () => Promise<T>) => Promise<T>): Listen {
  return async (channel, handlers) => {
    const unlisten = await exclusive(() => pglite.listen(channel, (payload) => handlers.message(payload)));
    return {
      async close() {
        // A host may have closed its PGlite first: nothing is left to unlisten.
        await exclusive(() => unlisten()).catch(() => {});
      },
    };
  };
}
