import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import {
  LatchkeyProvider,
  useMagicLink,
  useOtpSignIn,
  usePasskey,
  useSession,
  useTotp,
  useUser,
  useWalletSignIn,
} from '../src/index.js';

const packages = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('on the server (Node, no window)', () => {
  it('renders every hook as loading, makes no client and calls nothing', () => {
    const calls: string[] = [];
    const fetch: typeof globalThis.fetch = async (input) => {
      calls.push(String(input));
      return new Response('{}');
    };
    function Page() {
      const session = useSession();
      const user = useUser();
      const hooks = [
        useOtpSignIn(),
        useMagicLink({ fromUrl: true }),
        usePasskey(),
        useTotp(),
        useWalletSignIn(),
      ];
      return (
        <p>
          {session.status}/{user.status}/{hooks.map((h) => h.status).join(',')}
        </p>
      );
    }
    const html = renderToString(
      <LatchkeyProvider options={{ publicToken: 'pk_test', fetch, session: 'localStorage' }}>
        <Page />
      </LatchkeyProvider>,
    );
    expect(html).toBe('<p>loading<!-- -->/<!-- -->loading<!-- -->/<!-- -->idle,idle,idle,idle,idle</p>');
    expect(calls).toEqual([]);
  });

  it('a hook outside the provider says so', () => {
    function Lost() {
      useSession();
      return null;
    }
    expect(() => renderToString(<Lost />)).toThrow('useSession needs a <LatchkeyProvider> above it.');
  });
});

describe("@latchkey/next's server helpers", () => {
  it('import no client code: neither @latchkey/client, @latchkey/react nor react is in their module graph', async () => {
    for (const entry of ['index.ts', 'edge.ts']) {
      const result = await build({
        entryPoints: [path.join(packages, 'next/src', entry)],
        bundle: true,
        write: false,
        metafile: true,
        platform: 'node',
        format: 'esm',
        conditions: ['source'],
        logLevel: 'silent',
        // Workspace packages are followed into their sources; everything else stays an import.
        plugins: [
          {
            name: 'third-party-external',
            setup(b) {
              b.onResolve({ filter: /^[^./]/ }, (args) =>
                args.path.startsWith('@latchkey/') ? undefined : { path: args.path, external: true },
              );
            },
          },
        ],
      });
      const inputs = Object.keys(result.metafile.inputs);
      expect(
        inputs.some((p) => p.includes('packages/next/src/')),
        entry,
      ).toBe(true);
      expect(
        inputs.filter((p) => /packages\/(client|react)\//.test(p)),
        entry,
      ).toEqual([]);
      const imported = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
      expect(
        imported.filter((p) => /^(react|react-dom|@latchkey\/(client|react))(\/|$)/.test(p)),
        entry,
      ).toEqual([]);
    }
  });
});
