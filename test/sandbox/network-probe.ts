import { createServer, type Server } from "node:net";
import { networkInterfaces } from "node:os";

/**
 * A script run inside the sandbox (`node -e`): it tries every destination given in argv as
 * `host:port` over TCP and prints one JSON object, destination → "connected" or the error code.
 * UDP destinations (`udp:host:port`) report whether a datagram could be sent (routing), "sent".
 */
export const PROBE_SCRIPT = `
const net = require("node:net"), dgram = require("node:dgram");
// With -e the targets start at argv[1]; run from a file, argv[1] is the file (no colon in it).
const targets = process.argv.slice(1).filter((word) => word.includes(":"));
const results = {};
const tcp = (host, port) => new Promise((done) => {
  const socket = net.connect({ host, port: Number(port) });
  socket.setTimeout(20000, () => { socket.destroy(); done("timeout"); });
  socket.on("connect", () => { socket.destroy(); done("connected"); });
  socket.on("error", (error) => done(error.code || error.message));
});
const udp = (host, port) => new Promise((done) => {
  const socket = dgram.createSocket(host.includes(":") ? "udp6" : "udp4");
  socket.send(Buffer.from("probe"), Number(port), host, (error) => { socket.close(); done(error ? error.code : "sent"); });
});
(async () => {
  for (const target of targets) {
    const udpTarget = target.startsWith("udp:");
    const rest = udpTarget ? target.slice(4) : target;
    const at = rest.lastIndexOf(":");
    const host = rest.slice(0, at).replace(/^\\[|\\]$/g, "");
    results[target] = await (udpTarget ? udp : tcp)(host, rest.slice(at + 1));
  }
  console.log("PROBE " + JSON.stringify(results));
})();
`;

/** The probe as a shell command (the script in single quotes: it holds none). */
export function probeCommand(targets: string[]): string {
  if (PROBE_SCRIPT.includes("'")) throw new Error("the probe script must not contain a single quote");
  return `node -e '${PROBE_SCRIPT}' ${targets.join(" ")}`;
}

export function parseProbe(output: string): Record<string, string> {
  const line = output.split("\n").find((candidate) => candidate.startsWith("PROBE "));
  if (!line) throw new Error(`the probe printed no result:\n${output}`);
  return JSON.parse(line.slice("PROBE ".length)) as Record<string, string>;
}

/** A TCP server that counts connections, on `host` (port chosen by the system). */
export interface CountingServer {
  host: string;
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}

export async function countingServer(host: string): Promise<CountingServer> {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    // The probe hangs up as soon as it is connected: a reset here is the expected end.
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "ECONNRESET") throw error;
    });
    socket.end("reached\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, resolve);
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the server has no port");
  return {
    host,
    port: address.port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** This machine's first non-loopback IPv4 address (eth0 on the test machines). */
export function hostAddress(): string {
  for (const entries of Object.values(networkInterfaces()))
    for (const entry of entries ?? []) if (entry.family === "IPv4" && !entry.internal) return entry.address;
  throw new Error("this machine has no non-loopback IPv4 address to test with");
}
