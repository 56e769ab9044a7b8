import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { ContractFactory, getAddress, JsonRpcProvider, parseEther, Wallet } from 'ethers';
import solc from 'solc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceApp } from './balance-servers.js';
import { expectErrorShape } from './helpers.js';

/**
 * Ethereum-style balances against a real node: anvil (Foundry), started here with chain id 1 so
 * it stands in for Ethereum mainnet. The ERC-20 is compiled from the source below with solc,
 * deployed by a real transaction, and its runtime code then placed at the token table's USDC and
 * LINK addresses (anvil_setCode) so the route reads the real mainnet contract addresses.
 */
const TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// The least of ERC-20 that a balance read needs, plus an open mint for the test.
contract TestToken {
    string public constant name = "Test Token";
    string public constant symbol = "TEST";
    uint8 public immutable decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(uint8 decimals_) {
        decimals = decimals_;
    }

    function mint(address to, uint256 value) external {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        allowance[from][msg.sender] -= value;
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
        return true;
    }
}
`;

const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const LINK = '0x514910771AF9Ca656af840dff83E8264EcF986CA';
const USDT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
// Anvil's first development account (from its default mnemonic), funded at genesis.
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

let anvil: ChildProcess;
let rpcUrl: string;
let provider: JsonRpcProvider;

function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  return createRequire(import.meta.url).resolve(`@foundry-rs/anvil-${process.platform}-${arch}/bin/${exe}`);
}

function startAnvil(chainId: number): Promise<{ process: ChildProcess; url: string }> {
  const child = spawn(anvilBinary(), ['--port', '0', '--chain-id', String(chainId), '--accounts', '2'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
        resolve({ process: child, url: `http://${match[1]}` });
      }
    });
    child.once('exit', (code) => reject(new Error(`anvil exited with ${code}: ${out}`)));
  });
}

function compileToken() {
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'TestToken.sol': { content: TOKEN_SOURCE } },
        settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
      }),
    ),
  );
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(JSON.stringify(errors));
  const contract = output.contracts['TestToken.sol'].TestToken;
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}

beforeAll(async () => {
  const node = await startAnvil(1);
  anvil = node.process;
  rpcUrl = node.url;
  provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
});

afterAll(async () => {
  provider?.destroy();
  if (anvil && anvil.exitCode === null) {
    const exited = new Promise((resolve) => anvil.once('exit', resolve));
    anvil.kill('SIGTERM');
    await exited;
  }
});

describe('ethereum wallets on a local node (anvil)', () => {
  it('reads ETH and ERC-20 balances sent by real transactions, through POST /v1/wallets/balance', async () => {
    // No cache: the same balance is read before and after it changes.
    const t = await balanceApp({ ethereum: { mainnet: rpcUrl }, cacheSeconds: 0 });
    const wallet = await t.wallet('ethereum');
    const funder = new Wallet(DEV_KEY, provider);

    // Never seen by the chain: 0, not an error.
    expect((await t.balance(wallet.id, 'ethereum')).body.balance).toBe('0');

    await (
      await funder.sendTransaction({ to: wallet.public_address, value: 1_234_567_890_123_456_789n })
    ).wait();
    const eth = await t.balance(wallet.id, 'ethereum');
    expect(eth.status).toBe(200);
    expect(eth.body).toEqual({
      balance: '1.234567890123456789',
      token_symbol: 'ethereum',
      wallet: await t.latchkey.wallets.get(t.app_id, wallet.id),
    });
    expect(await provider.getBalance(wallet.public_address)).toBe(1_234_567_890_123_456_789n);

    // A real deployment; its runtime code then stands at the mainnet USDC and LINK addresses.
    const { abi, bytecode } = compileToken();
    const token = await new ContractFactory(abi, bytecode, funder).deploy(6);
    await token.waitForDeployment();
    const runtime = await provider.getCode(await token.getAddress());
    expect(runtime.length).toBeGreaterThan(100);
    await provider.send('anvil_setCode', [USDC, runtime]);
    await provider.send('anvil_setCode', [LINK, runtime]);

    const usdc = token.attach(USDC).connect(funder) as typeof token;
    await (await usdc.getFunction('mint')(wallet.public_address, 1_234_500_000n)).wait();
    await (await usdc.getFunction('mint')(funder.address, 99n)).wait();
    const link = token.attach(LINK).connect(funder) as typeof token;
    await (await link.getFunction('mint')(wallet.public_address, parseEther('0.5'))).wait();
    // Minted at the deployment's own address too: the route must not read that one.
    await (await token.getFunction('mint')(wallet.public_address, 7n)).wait();

    const usdcRes = await t.balance(wallet.id, 'USDC');
    expect(usdcRes.status).toBe(200);
    expect(usdcRes.body.balance).toBe('1234.5');
    expect(usdcRes.body.token_symbol).toBe('USDC');
    expect((await t.balance(wallet.id, 'LINK')).body.balance).toBe('0.5');

    // USDT has no code on this node: a call to it answers `0x`, which is an error, not "0".
    const usdt = await t.balance(wallet.id, 'USDT');
    expect(usdt.status).toBe(502);
    expect(expectErrorShape(usdt).error_type).toBe('chain_invalid_response');
    expect(usdt.body.error_message).toContain(USDT);
  });

  it('reads AVAX and MATIC as the native coin of their own endpoints, for the same address', async () => {
    const t = await balanceApp({
      // The same node stands in for the C-Chain (its chain id declared, as for a development node)...
      avalanche: { mainnet: { url: rpcUrl, chainId: 1 } },
      // ...and is refused as Polygon, whose chain id is 137.
      polygon: { mainnet: rpcUrl },
    });
    const wallet = await t.wallet('ethereum');
    await provider.send('anvil_setBalance', [wallet.public_address, '0x2b5e3af16b1880000']); // 50 × 10^18
    const avax = await t.balance(wallet.id, 'AVAX');
    expect(avax.status).toBe(200);
    expect(avax.body.balance).toBe('50');

    const matic = await t.balance(wallet.id, 'MATIC');
    expect(matic.status).toBe(502);
    expect(expectErrorShape(matic)).toMatchObject({ error_type: 'chain_invalid_response' });
    expect(matic.body.error_message).toContain('chain id 1, not 137');
  });

  it('refuses a token with no address on the test network, and a token of another chain', async () => {
    const t = await balanceApp({ ethereum: { mainnet: rpcUrl } }, { wallets: { network: 'testnet' } });
    const wallet = await t.wallet('ethereum');
    const usdt = await t.balance(wallet.id, 'USDT');
    expect(usdt.status).toBe(400);
    expect(expectErrorShape(usdt)).toMatchObject({
      error_type: 'token_not_on_network',
      error_field: 'token_symbol',
    });
    expect(usdt.body.error_message).toContain('Sepolia');
    // Sepolia has USDC, but no Sepolia endpoint is configured here.
    const usdc = await t.balance(wallet.id, 'USDC');
    expect(usdc.status).toBe(503);
    expect(expectErrorShape(usdc).error_type).toBe('chain_not_configured');
    const sol = await t.balance(wallet.id, 'solana');
    expect(sol.status).toBe(400);
    expect(expectErrorShape(sol).error_type).toBe('token_wallet_type_mismatch');
  });

  it('uses the checksummed mainnet contract addresses', () => {
    for (const address of [USDC, LINK, USDT]) expect(getAddress(address)).toBe(address);
  });
});
