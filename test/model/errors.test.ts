import { APICallError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { classifyModelError } from "../../src/model/errors.js";

describe("model error classification", () => {
  it("names the inner cause of a failed fetch", async () => {
    const error = await fetch("http://127.0.0.1:9/v1/models").catch((failure: unknown) => failure);
    expect(classifyModelError(error).cause).toBe("fetch failed: bad port");
  });

  it("reads the provider's message from an HTTP error body and does not retry 401", () => {
    const error = new APICallError({
      message: "Unauthorized",
      url: "http://127.0.0.1/v1/chat/completions",
      requestBodyValues: {},
      statusCode: 401,
      responseBody: JSON.stringify({ error: { message: "invalid API key" } }),
      isRetryable: false,
    });
    expect(classifyModelError(error)).toMatchObject({
      status: 401,
      retryable: false,
      cause: "401 invalid API key",
    });
  });

  it("treats a stream that broke after a 200 as a retryable dropped stream", () => {
    const error = new APICallError({
      message: "Failed to process successful response",
      url: "http://127.0.0.1/v1/chat/completions",
      requestBodyValues: {},
      statusCode: 200,
      cause: new TypeError("terminated"),
      isRetryable: true,
    });
    expect(classifyModelError(error)).toMatchObject({
      retryable: true,
      cause: "stream dropped before the finish (terminated)",
    });
  });
});
