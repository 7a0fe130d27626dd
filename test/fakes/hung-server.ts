import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface HungServer {
  baseUrl: string;
  /** Resolves when the first request has arrived (and been left without an answer). */
  firstRequest: Promise<void>;
  requests(): number;
  close(): Promise<void>;
}

/**
 * An HTTP server on 127.0.0.1 that accepts every connection and request and never answers: an
 * embedding server stuck loading a model or deadlocked. Closing it drops the waiting connections.
 */
export async function startHungServer(): Promise<HungServer> {
  let count = 0;
  let arrived: () => void = () => {};
  const firstRequest = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const server: Server = createServer(() => {
    count++;
    arrived();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    firstRequest,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
