import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { signingCeilings } from './signing-ceilings.js';

/**
 * The ceilings: the same JSON answer from a bare Express route and a bare node:http route, run
 * as their own process like the server under test; beside the Express one, the signing ceilings
 * (routes that do only a wallet route's cryptography).
 */
const kind = process.argv[2];
const body = JSON.stringify({ status: 'ok' });

const server =
  kind === 'express'
    ? express()
        .get('/bare', (_req, res) => {
          res.json({ status: 'ok' });
        })
        .use('/ceiling', signingCeilings())
        .listen(0, '127.0.0.1')
    : createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      }).listen(0, '127.0.0.1');

server.on('listening', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
});
