import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NextConfig } from 'next';

// The @latchkey workspace packages are compiled from their TypeScript sources (the `source`
// export condition), so `next build` works in a fresh checkout before any package is built.
const latchkeyPackages = [
  '@latchkey/client',
  '@latchkey/core',
  '@latchkey/memory',
  '@latchkey/next',
  '@latchkey/react',
  '@latchkey/senders',
];
const projectDir = path.dirname(fileURLToPath(import.meta.url));

/** For each export of a package (`@latchkey/next`, `@latchkey/next/edge`), the `./…` path from this app to its `source` file. */
function sourceEntries(name: string): Array<[string, string]> {
  for (let dir = projectDir; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) {
      const exports: Record<string, string | { source?: string }> = JSON.parse(
        readFileSync(manifest, 'utf8'),
      ).exports;
      // Entries without a `source` condition (`./package.json`) need no alias.
      return Object.entries(exports).flatMap(
        ([subpath, target]): Array<[string, string]> =>
          typeof target === 'object' && target.source
            ? [
                [
                  path.posix.join(name, subpath),
                  `./${path.relative(projectDir, path.resolve(path.dirname(manifest), target.source))}`,
                ],
              ]
            : [],
      );
    }
    if (dir === path.dirname(dir)) throw new Error(`${name} is not installed`);
  }
}

const nextConfig: NextConfig = {
  transpilePackages: latchkeyPackages,
  // Builds and dev use webpack (`--webpack`): Turbopack, mapping `./x.js` imports to `./x.ts`
  // under NodeNext, also picks the TypeScript sources some dependencies ship (@scure/*) and cannot
  // compile them (docs/nextjs.md).
  turbopack: {
    resolveAlias: Object.fromEntries(latchkeyPackages.flatMap(sourceEntries)),
  },
  // For `next build --webpack`: the same through webpack's own options.
  webpack: (config) => {
    config.resolve.conditionNames = ['source', ...(config.resolve.conditionNames ?? ['...'])];
    config.resolve.extensionAlias = { ...config.resolve.extensionAlias, '.js': ['.ts', '.tsx', '.js'] };
    return config;
  },
};

export default nextConfig;
