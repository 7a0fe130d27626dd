import { McpError } from "./errors.js";

/** The stdio transport's own limit for one message; the same for HTTP. */
export const maxHttpMessageBytes = 10 * 1024 * 1024;

/** Part of the error's message, by which the connection recognises it after the SDK wrapped it. */
export const oversizedMessage = "sent a message larger than";

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * `fetch` for the streamable HTTP transport with a size limit on each message a server sends: a JSON
 * answer as a whole, an event stream per event (a blank line ends one, so a long-lived stream of
 * small notifications is fine). A server that answers with more fails that request instead of
 * filling Mercury's memory.
 */
export function boundedFetch(server: string, limit = maxHttpMessageBytes, inner: Fetch = fetch): Fetch {
  return async (url, init) => {
    // Redirects are not followed: the configured headers (its credentials) would go along to
    // wherever the server points, another host included, and the user configured this address.
    const response = await inner(url, { ...init, redirect: "manual" });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = response.headers.get("location") ?? "(no Location)";
      let target = location;
      try {
        target = new URL(location, url).origin;
      } catch (error) {
        target = `an unreadable address (${error instanceof Error ? error.message : String(error)})`;
      }
      throw new McpError(
        "protocol",
        `MCP server ${server} answered with a redirect (HTTP ${response.status}) to ${target}; Mercury does not follow an MCP server's redirects (its headers would go along). If the new address is right, put it in mcp.servers.${server}.url`,
      );
    }
    if (!response.body) return response;
    const tooLarge = () =>
      new McpError(
        "protocol",
        `MCP server ${server} ${oversizedMessage} ${limit} bytes; it was cut off (the limit protects Mercury's memory)`,
      );
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (declared > limit) {
      await response.body.cancel();
      throw tooLarge();
    }
    const eventStream = (response.headers.get("content-type") ?? "").includes("text/event-stream");
    let messageBytes = 0;
    let lineLength = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          let largest = 0;
          if (!eventStream) largest = messageBytes += chunk.length;
          else {
            // Checked at every byte: a whole event (and its closing blank line) can come in one chunk.
            for (let index = 0; index < chunk.length; index++) {
              const byte = chunk[index];
              messageBytes += 1;
              if (messageBytes > largest) largest = messageBytes;
              if (byte === 0x0a) {
                if (lineLength === 0) messageBytes = 0;
                lineLength = 0;
              } else if (byte !== 0x0d) lineLength += 1;
            }
          }
          if (largest > limit) controller.error(tooLarge());
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
