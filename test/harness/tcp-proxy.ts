/**
 * A loopback TCP proxy that can stall: the partition fault of the scale-out tests. While stalled it
 * stops forwarding in both directions (bytes are held, sockets stay open, as on a network that
 * drops packets without resetting), and `resume()` forwards what was held and carries on.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface StallingProxy {
  /** Port the proxy listens on (127.0.0.1). */
  port: number;
  /** Stops forwarding (both directions) until {@link resume}. */
  stall(): void;
  /** Forwards the held bytes and resumes forwarding. */
  resume(): void;
  close(): Promise<void>;
}

/**
 * Starts a proxy on a loopback port (`port`, default a free one) to `127.0.0.1:targetPort`. Closing
 * it cuts every connection and refuses new ones (a node that is gone); a new proxy on the same
 * port brings the node back at the same address.
 */
export async function startStallingProxy(targetPort: number, port = 0): Promise<StallingProxy> {
  let stalled = false;
  const held: Array<{ to: Socket; data: Buffer }> = [];
  const sockets = new Set<Socket>();
  const pipe = (from: Socket, to: Socket) => {
    from.on('data', (data: Buffer) => {
      if (stalled) held.push({ to, data });
      else to.write(data);
    });
    from.on('close', () => to.destroy());
    from.on('error', () => to.destroy());
  };
  const server: Server = createServer((client) => {
    const upstream = createConnection({ port: targetPort, host: '127.0.0.1' });
    sockets.add(client).add(upstream);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('proxy did not bind');
  return {
    port: addr.port,
    stall() {
      stalled = true;
    },
    resume() {
      stalled = false;
      for (const { to, data } of held.splice(0)) if (!to.destroyed) to.write(data);
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
