import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type Koa from "koa";

/** Bounded wait for in-flight requests at shutdown before connections are cut. */
const closeGraceMs = 5_000;

export interface ListeningServer {
  readonly server: http.Server;
  /** The bound address; the port is the real one when 0 was asked for. */
  readonly host: string;
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish (bounded), then resolves. */
  close(): Promise<void>;
}

export async function listen(app: Koa, host: string, port: number): Promise<ListeningServer> {
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return { server, host, port: address.port, close: () => closeServer(server) };
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    const cut = setTimeout(() => server.closeAllConnections(), closeGraceMs);
    server.close(() => {
      clearTimeout(cut);
      resolve();
    });
    // Idle keep-alive connections would otherwise hold close() open until they time out.
    server.closeIdleConnections();
  });
}
