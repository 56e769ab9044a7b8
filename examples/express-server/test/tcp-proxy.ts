import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A TCP forwarder the test can cut and restore, standing for a database that goes away. */
export interface TcpProxy {
  port: number;
  /** Destroys every connection and stops listening: connects are then refused. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // Either side may be torn down first; errors of the other are expected.
    socket.on('error', () => socket.destroy());
  };
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer((client) => {
        const upstream = createConnection(target);
        track(client);
        track(upstream);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject).listen(port, '127.0.0.1', () => resolve(server));
    });

  let server: Server | undefined = await listen(0);
  const port = (server.address() as { port: number }).port;
  return {
    port,
    async cut() {
      const closing = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      if (closing) await new Promise((resolve) => closing.close(resolve));
    },
    async restore() {
      server ??= await listen(port);
    },
  };
}
