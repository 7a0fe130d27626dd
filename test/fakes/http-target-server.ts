import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Route = (req: IncomingMessage, res: ServerResponse) => void;

export interface TargetServer {
  port: number;
  url(path: string): string;
  /** Every request seen: method, path and Host header. */
  requests: { path: string; host: string | undefined }[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 with routes by exact path; unknown paths answer 404. */
export async function startTargetServer(routes: Record<string, Route>): Promise<TargetServer> {
  const requests: TargetServer["requests"] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    requests.push({ path, host: req.headers.host });
    const route = routes[path.split("?")[0] ?? path];
    if (route) {
      route(req, res);
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" });
    res.end(`no route for ${path}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
