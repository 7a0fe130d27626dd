/** Wire-level self-tests of the fake OpenAI server: the exact SSE/JSON it sends and its side routes. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "./openai-server.js";

const API_KEY = "sk-test-fake";
let server: FakeOpenAIServer;

beforeEach(async () => {
  server = await startFakeOpenAIServer({ apiKey: API_KEY });
});

afterEach(async () => {
  await server.close();
});

describe("fake OpenAI server over raw HTTP", () => {
  const auth = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };

  it("speaks the SSE wire format: role chunk, deltas, finish chunk, usage chunk, [DONE]", async () => {
    server.push({ text: ["a", "b"], toolCalls: [{ id: "c1", name: "t", input: { k: 1 } }] });
    const response = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        model: "m",
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: "x" }],
      }),
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = (await response.text()).split("\n\n").filter((e) => e !== "");
    expect(events.every((e) => e.startsWith("data: "))).toBe(true);
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice("data: ".length)));
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "" });
    expect(chunks.slice(1, 3).map((c) => c.choices[0].delta.content)).toEqual(["a", "b"]);
    expect(chunks[3].choices[0].delta.tool_calls[0]).toEqual({
      index: 0,
      id: "c1",
      type: "function",
      function: { name: "t", arguments: "" },
    });
    const args = chunks
      .slice(4, -2)
      .map((c) => c.choices[0].delta.tool_calls[0].function.arguments)
      .join("");
    expect(args).toBe('{"k":1}');
    expect(chunks.at(-2).choices[0].finish_reason).toBe("tool_calls");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5 } });
  });

  it("lists models on GET /v1/models (with auth) and 404s unknown routes with an OpenAI error body", async () => {
    const models = await fetch(`${server.url}/models`, { headers: auth });
    expect(await models.json()).toEqual({
      object: "list",
      data: [{ id: "fake-model", object: "model", created: 0, owned_by: "fake" }],
    });
    expect((await fetch(`${server.url}/models`)).status).toBe(401);
    const missing = await fetch(`${server.url}/embeddings`, { method: "POST", headers: auth, body: "{}" });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      error: { message: "fake OpenAI server: no route POST /v1/embeddings" },
    });
  });

  it("rejects malformed chat bodies with 400 naming the problem", async () => {
    const notJson = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: auth,
      body: "{",
    });
    expect(notJson.status).toBe(400);
    const noMessages = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ model: "m" }),
    });
    expect(noMessages.status).toBe(400);
    expect(((await noMessages.json()) as { error: { message: string } }).error.message).toContain("messages");
  });

  it("accepts replies on the control endpoint, validating them", async () => {
    const base = server.url.replace(/\/v1$/, "");
    const ok = await fetch(`${base}/_fake/replies`, {
      method: "POST",
      body: JSON.stringify([{ text: "queued" }]),
    });
    expect(await ok.json()).toEqual({ remaining: 1 });
    const bad = await fetch(`${base}/_fake/replies`, {
      method: "POST",
      body: JSON.stringify([{ error: { status: 200, message: "x" } }]),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(
      /^invalid scripted replies: 0/,
    );
    const chat = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] }),
    });
    expect(await chat.json()).toMatchObject({ choices: [{ message: { content: "queued" } }] });
    const recorded = await fetch(`${base}/_fake/requests`);
    expect(((await recorded.json()) as unknown[]).length).toBe(server.requests.length); // it records itself too
  });

  it("close() is idempotent", async () => {
    await server.close();
    await server.close();
    await expect(fetch(`${server.url}/models`)).rejects.toThrow();
  });
});
