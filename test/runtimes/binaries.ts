/**
 * The edge runtimes' binaries, fetched at test time from the npm packages that carry them
 * (`npm pack` of the platform package, which holds the binary and runs no install script, unpacked into node_modules/.cache). Kept out of the
 * lockfile on purpose: these are 35–50 MB each per platform, and only this test needs them.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const cache = new URL('../../node_modules/.cache/latchkey-runtimes/', import.meta.url).pathname;

interface Runtime {
  /** The version every platform's package exists for on the registry. */
  version: string;
  /** The platform package for `${process.platform}-${process.arch}`, and the binary's path in it. */
  packages: Record<string, string>;
  binary: string;
}

export const runtimes = {
  workerd: {
    version: '1.20261117.1',
    packages: {
      'linux-x64': '@cloudflare/workerd-linux-64',
      'linux-arm64': '@cloudflare/workerd-linux-arm64',
      'darwin-x64': '@cloudflare/workerd-darwin-64',
      'darwin-arm64': '@cloudflare/workerd-darwin-arm64',
    },
    binary: 'bin/workerd',
  },
  deno: {
    version: '2.9.6',
    packages: {
      'linux-x64': '@deno/linux-x64-glibc',
      'linux-arm64': '@deno/linux-arm64-glibc',
      'darwin-x64': '@deno/darwin-x64',
      'darwin-arm64': '@deno/darwin-arm64',
    },
    binary: 'deno',
  },
  bun: {
    version: '1.4.5',
    packages: {
      'linux-x64': '@oven/bun-linux-x64',
      'linux-arm64': '@oven/bun-linux-aarch64',
      'darwin-x64': '@oven/bun-darwin-x64',
      'darwin-arm64': '@oven/bun-darwin-aarch64',
    },
    binary: 'bin/bun',
  },
} satisfies Record<string, Runtime>;

/** The binary's path, or why there is none (no package for this platform, the registry refused). */
export async function installRuntime(name: keyof typeof runtimes): Promise<{ bin?: string; why?: string }> {
  const { version, packages, binary } = runtimes[name] as Runtime;
  const pkg = packages[`${process.platform}-${process.arch}`];
  if (!pkg) return { why: `no ${name} package for ${process.platform}-${process.arch}` };
  const dir = join(cache, `${name}-${version}`);
  const bin = join(dir, 'package', binary);
  if (existsSync(bin)) return { bin };
  try {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await run('npm', ['pack', '--silent', `${pkg}@${version}`], { cwd: dir });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack wrote no tarball');
    await run('tar', ['-xzf', tarball], { cwd: dir });
    rmSync(join(dir, tarball));
    chmodSync(bin, 0o755);
    await run(bin, ['--version']);
    return { bin };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    return { why: `${pkg}@${version} could not be installed: ${(e as Error).message.split('\n')[0]}` };
  }
}
