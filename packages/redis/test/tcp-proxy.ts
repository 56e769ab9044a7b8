import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a server that a test can cut: `cut()` drops every connection and
 * refuses new ones until `mend()`, as a network or server outage would.
 */
export async function tcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    cut() {
      refusing = true;
      for (const s of sockets) s.destroy();
    },
    mend() {
      refusing = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
