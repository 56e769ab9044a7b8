import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createBound } from './create-bound.js';
import { signingBounds } from './signing-bounds.js';
import { signingCeilings } from './signing-ceilings.js';

/**
 * The ceilings: the same JSON answer from a bare Express route and a bare node:http route, run
 * as their own process like the server under test; beside the Express one, the signing ceilings
 * (routes that do only a wallet route's cryptography) and, with DATABASE_URL, their bounds (the
 * same plus one durable audit insert each, signing-bounds.ts; the create's: its seed and wallet
 * sealed and stored by one durable statement, create-bound.ts).
 */
const kind = process.argv[2];
const body = JSON.stringify({ status: 'ok' });

const bounds =
  kind === 'express' && process.env.DATABASE_URL ? await signingBounds(process.env.DATABASE_URL) : undefined;
const created =
  kind === 'express' && process.env.DATABASE_URL ? await createBound(process.env.DATABASE_URL) : undefined;

const server =
  kind === 'express'
    ? express()
        .get('/bare', (_req, res) => {
          res.json({ status: 'ok' });
        })
        .use('/ceiling', signingCeilings())
        .use('/bound', bounds?.router ?? express.Router())
        .use('/bound', created?.router ?? express.Router())
        .listen(0, '127.0.0.1')
    : createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      }).listen(0, '127.0.0.1');

server.on('listening', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
});

// The bounds' tables go with the process (child.ts stops children with SIGTERM).
process.once('SIGTERM', () => {
  server.close();
  void Promise.allSettled([bounds?.close(), created?.close()]).finally(() => process.exit(0));
});
