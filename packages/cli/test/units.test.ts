import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clockCheck, proxyCheck, secretCheck, vaultKeyCheck } from '../src/doctor.js';
import { loadPg, loadPglite } from '../src/drivers.js';
import { loadEnvFile } from '../src/env-file.js';
import { newFolder, removeFolders } from './run-bin.js';

afterAll(removeFolders);

describe('loadEnvFile', () => {
  it('sets what the file names and the environment lacks, never overriding a variable already set', async () => {
    const file = path.join(await newFolder(), '.env');
    await writeFile(file, 'LATCHKEY_SECRET=from-file\nLATCHKEY_VAULT_KEY=also-from-file\n# note\nEMPTY=\n');
    const env: NodeJS.ProcessEnv = { LATCHKEY_SECRET: 'from-shell' };
    expect(loadEnvFile(file, env).sort()).toEqual(['EMPTY', 'LATCHKEY_VAULT_KEY']);
    expect(env).toEqual({ LATCHKEY_SECRET: 'from-shell', LATCHKEY_VAULT_KEY: 'also-from-file', EMPTY: '' });
  });

  it('does nothing without a file', async () => {
    const env = {};
    expect(loadEnvFile(path.join(await newFolder(), '.env'), env)).toEqual([]);
    expect(env).toEqual({});
  });
});

describe('the optional database drivers', () => {
  const missing = (name: string) => async () => {
    throw Object.assign(new Error(`Cannot find package '${name}' imported from /x`), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
  };
  it('name the missing package and the command that installs it', async () => {
    await expect(loadPg(missing('pg'))).rejects.toThrow(
      'a database URL is set: Postgres, which needs the package pg: npm install pg',
    );
    await expect(loadPglite(missing('@electric-sql/pglite'))).rejects.toThrow(
      /embedded PGlite, which needs the package @electric-sql\/pglite: npm install @electric-sql\/pglite$/,
    );
  });
  it('pass on any other failure as it is', async () => {
    const broken = async () => {
      throw new Error('syntax error in pg');
    };
    await expect(loadPg(broken)).rejects.toThrow(/^syntax error in pg$/);
    // A dependency of pg that is missing is not pg missing.
    await expect(loadPg(missing('pg-protocol'))).rejects.toThrow(/Cannot find package/);
  });
});

describe('doctor checks', () => {
  it('clock: ok within 1 s, warn to 5 s, fail beyond, either way', () => {
    expect(clockCheck(900).status).toBe('ok');
    expect(clockCheck(-1_000).status).toBe('ok');
    expect(clockCheck(1_001).status).toBe('warn');
    expect(clockCheck(-5_000).status).toBe('warn');
    expect(clockCheck(5_001)).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('5.0 s behind'),
    });
    expect(clockCheck(-60_000)).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('60.0 s ahead of'),
    });
  });

  it('secret: at least 32 characters', () => {
    expect(secretCheck({ value: 'x'.repeat(32), from: 'LATCHKEY_SECRET' }).status).toBe('ok');
    expect(secretCheck({ value: 'x'.repeat(31), from: 'LATCHKEY_SECRET' }).status).toBe('fail');
    expect(secretCheck(undefined).status).toBe('fail');
  });

  it('vault key: exactly 32 bytes, base64 or base64url', () => {
    const key = Buffer.alloc(32, 7);
    expect(vaultKeyCheck({ value: key.toString('base64url'), from: 'V' }).status).toBe('ok');
    expect(vaultKeyCheck({ value: key.toString('base64'), from: 'V' }).status).toBe('ok');
    expect(vaultKeyCheck({ value: Buffer.alloc(31).toString('base64url'), from: 'V' }).status).toBe('fail');
    expect(vaultKeyCheck({ value: Buffer.alloc(33).toString('base64url'), from: 'V' }).status).toBe('fail');
    expect(vaultKeyCheck(undefined).status).toBe('warn');
  });

  it('proxy: a warning on a platform that proxies every request', () => {
    expect(proxyCheck({}).status).toBe('ok');
    expect(proxyCheck({ K_SERVICE: 'api' })).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('Cloud Run'),
    });
  });
});
