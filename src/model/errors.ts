import { APICallError } from "@ai-sdk/provider";

export interface ClassifiedError {
  status: number | null;
  retryable: boolean;
  retryAfterMs: number | null;
  /** Short and real: "401 invalid API key", "connection refused 127.0.0.1:11434". */
  cause: string;
}

const retryableStatuses = new Set([408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529]);
const retryableCodes = new Set([
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ECONNABORTED",
  "UND_ERR_SOCKET",
  "EAI_AGAIN",
]);

export function classifyModelError(error: unknown): ClassifiedError {
  if (APICallError.isInstance(error) && error.statusCode !== undefined && error.statusCode < 300) {
    // The response started fine and the stream broke mid-way (socket closed, garbled chunk).
    const inner = error.cause instanceof Error ? error.cause.message : error.message;
    return {
      status: null,
      retryable: true,
      retryAfterMs: null,
      cause: `stream dropped before the finish (${inner})`,
    };
  }
  if (APICallError.isInstance(error) && error.statusCode !== undefined) {
    const status = error.statusCode;
    return {
      status,
      retryable: retryableStatuses.has(status),
      retryAfterMs: parseRetryAfter(error.responseHeaders?.["retry-after"]),
      cause: `${status} ${apiMessage(error)}`.trim(),
    };
  }
  const network = findNetworkCause(error);
  if (network)
    return { status: null, retryable: network.retryable, retryAfterMs: null, cause: network.cause };
  if (error instanceof Error && (error.name === "TimeoutError" || /timed? ?out/i.test(error.message))) {
    return { status: null, retryable: true, retryAfterMs: null, cause: `timeout: ${error.message}` };
  }
  const message = causeChain(error);
  return {
    status: null,
    retryable: /terminated|socket|stream/i.test(message),
    retryAfterMs: null,
    cause: message,
  };
}

function apiMessage(error: APICallError): string {
  const body = error.responseBody;
  if (body) {
    try {
      const parsed: unknown = JSON.parse(body);
      const message = extractMessage(parsed);
      if (message) return message;
    } catch {
      return body.slice(0, 200);
    }
  }
  return error.message;
}

function extractMessage(value: unknown): string | null {
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const inner = record.error;
    if (typeof inner === "string") return inner;
    if (inner && typeof inner === "object") {
      const message = (inner as Record<string, unknown>).message;
      if (typeof message === "string") return message;
    }
    if (typeof record.message === "string") return record.message;
  }
  return null;
}

function findNetworkCause(error: unknown): { cause: string; retryable: boolean } | null {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current; depth++) {
    if (current && typeof current === "object") {
      const record = current as Record<string, unknown>;
      const code = typeof record.code === "string" ? record.code : undefined;
      if (code === "ECONNREFUSED") {
        const where =
          typeof record.address === "string" ? ` ${record.address}:${String(record.port ?? "")}` : "";
        return { cause: `connection refused${where}`, retryable: false };
      }
      if (code === "ENOTFOUND") {
        const host = typeof record.hostname === "string" ? ` ${record.hostname}` : "";
        return { cause: `host not found${host}`, retryable: false };
      }
      if (code && retryableCodes.has(code)) return { cause: `network error ${code}`, retryable: true };
      current = record.cause;
    } else {
      break;
    }
  }
  return null;
}

/** Retry-After is either seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return null;
}

/** "fetch failed: bad port" rather than a bare "fetch failed": the inner causes are the real reason. */
function causeChain(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    const message = current instanceof Error ? current.message : String(current);
    // A wrapper often repeats its cause at the end of its own message ("Cannot connect to API: bad
    // port" caused by "bad port"): a cause already said is not said twice ("…: bad port: bad port").
    const said = messages.some((earlier) => earlier === message || earlier.endsWith(`: ${message}`));
    if (message && !said) messages.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages.join(": ");
}
