import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';

/** Anvil's first development accounts (from its default mnemonic), funded at genesis. */
export const ANVIL_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
] as const;

export interface AnvilNode {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  return createRequire(import.meta.url).resolve(`@foundry-rs/anvil-${process.platform}-${arch}/bin/${exe}`);
}

/** A real anvil (Foundry's development node) on a free port, with this chain id. */
export function startAnvil(chainId: number, extra: string[] = []): Promise<AnvilNode> {
  const child = spawn(
    anvilBinary(),
    ['--port', '0', '--chain-id', String(chainId), '--accounts', '2', ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`anvil did not start: ${out}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Listening on (\S+:\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        child.stderr!.resume();
        resolve({
          url: `http://${match[1]}`,
          process: child,
          stop: async () => {
            if (child.exitCode !== null) return;
            const exited = new Promise((r) => child.once('exit', r));
            child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`anvil exited with ${code}: ${out}`)));
  });
}

interface NodeReader {
  getTransactionCount(address: string): Promise<number>;
  send(method: string, params: unknown[]): Promise<unknown>;
}

/**
 * The address's mined transaction count once it reaches `expected`, or after 30 s. Anvil
 * automines each transaction as it arrives, but one that arrives ahead of its nonce waits in the
 * queue and is not always mined once the gap fills; a real chain keeps making blocks, so a block
 * is mined here whenever a wait sees no progress.
 */
export async function minedCount(node: NodeReader, address: string, expected: number): Promise<number> {
  let last = -1;
  for (let i = 0; i < 300; i++) {
    const count = await node.getTransactionCount(address);
    if (count >= expected) return count;
    if (count === last) await node.send('evm_mine', []);
    last = count;
    await new Promise((r) => setTimeout(r, 100));
  }
  return node.getTransactionCount(address);
}
