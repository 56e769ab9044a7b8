import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';

/**
 * Foundry's anvil binary, found the way @latchkey/core's send tests find it but through the
 * package that declares it: core's devDependency `@foundry-rs/anvil`, whose optional dependency
 * for this platform holds the binary. The bench declares no anvil of its own (that would change
 * the lockfile), so it runs where the workspace's dev dependencies are installed.
 */
function anvilBinary(): string {
  const fromCore = createRequire(new URL('../../packages/core/package.json', import.meta.url));
  const fromAnvil = createRequire(fromCore.resolve('@foundry-rs/anvil/package.json'));
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  return fromAnvil.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/bin/${exe}`);
}

/** A real anvil on a free port with this chain id and one funded account; stop it with `child.kill()`. */
export function startAnvil(chainId: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(anvilBinary(), ['--port', '0', '--chain-id', String(chainId), '--accounts', '1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Listening on (\S+:\d+)/.exec(out);
      if (match) {
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolve({ url: `http://${match[1]}`, child });
      }
    });
    child.on('exit', () => reject(new Error(`anvil exited: ${out}`)));
  });
}
