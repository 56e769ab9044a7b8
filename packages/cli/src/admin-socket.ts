import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import path from 'node:path';
import type { Latchkey } from '@latchkey/core';
import { type AdminCall, adminErrorMessage, runAdminCall } from './admin-operations.js';

/**
 * Embedded PGlite is single-process: while a server runs on it, the CLI cannot open the same data
 * folder. A host on PGlite therefore answers the CLI's app commands on a Unix socket inside the
 * data folder (`serveAdminSocket`), which only users who can read that folder can reach.
 */
export const adminSocketPath = (dataDir: string) => path.join(dataDir, 'admin.sock');

const pidFile = (dataDir: string) => path.join(dataDir, 'server.pid');

/** True when a server process that wrote its pid into the data folder is still alive. */
export async function serverRunning(dataDir: string): Promise<boolean> {
  const pid = Number(await readFile(pidFile(dataDir), 'utf8').catch(() => ''));
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * For a host on embedded PGlite in `dataDir/pglite`: answers `latchkey app …` run on the same
 * data folder with this Latchkey instance, on `dataDir/admin.sock`, and records the process id
 * so the CLI never opens the database beside it. Close the returned server when stopping.
 * Undefined when the socket path is too long for the platform: the CLI then asks for the server
 * to be stopped.
 */
export async function serveAdminSocket(latchkey: Latchkey, dataDir: string): Promise<Server | undefined> {
  // The pid lets the CLI refuse to open PGlite beside a live server even without the socket.
  await writeFile(pidFile(dataDir), String(process.pid));
  const socket = adminSocketPath(dataDir);
  if (socket.length > 100) return undefined; // beyond the sun_path limit; the CLI then needs the server stopped
  await rm(socket, { force: true });
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', async () => {
      try {
        if (req.method !== 'POST' || req.url !== '/admin')
          throw new Error(`unknown admin request ${req.method} ${req.url}`);
        const result = await runAdminCall(latchkey, JSON.parse(body) as AdminCall);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      } catch (err) {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: adminErrorMessage(err) }));
      }
    });
  });
  await new Promise<void>((resolve, reject) => server.listen(socket, resolve).once('error', reject));
  server.once('close', () => {
    rm(pidFile(dataDir), { force: true }).catch(() => {});
  });
  return server;
}

/** Asks a running server to run an admin call; undefined when no server answers on the socket. */
export function adminCallThroughServer(
  dataDir: string,
  call: AdminCall,
): Promise<{ result: unknown } | undefined> {
  const socketPath = adminSocketPath(dataDir);
  if (!existsSync(socketPath)) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: '/admin', method: 'POST' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () => {
        const body = JSON.parse(text);
        if (res.statusCode === 200) resolve({ result: body });
        else reject(new Error(body.error));
      });
    });
    // A socket file left by a server that died: fall back to opening the storage.
    req.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? resolve(undefined) : reject(err),
    );
    req.end(JSON.stringify(call));
  });
}
