#!/usr/bin/env node
// The dashboard's speed, in Debian's Chromium (playwright-core, no download) against a daemon started
// from the built binary, with a loopback OpenAI-compatible model server written here so each token's
// send time is known:
//  1. first page load of the status page right after login: navigation time (ms) and bytes (HTML +
//     app.js + app.css), against a bare HTTP GET of the same page from Node in the same run;
//  2. token → browser: from the model server writing a token to its text appearing in the chat page
//     (MutationObserver), against the same token reaching a terminal client on the daemon's socket.
// Usage: npm run build && node scripts/bench-dashboard.mjs [--tokens N] [--gap MS] [--loads N] [--json]
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { connect } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";

const root = resolve(import.meta.dirname, "..");
const cli = join(root, "dist/cli.js");
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const index = args.indexOf(name);
  return index >= 0 ? Number(args[index + 1]) : fallback;
};
const tokenCount = flag("--tokens", 40);
const gapMs = flag("--gap", 40);
const loads = flag("--loads", 5);
const json = args.includes("--json");
const chromiumPath = process.env.MERCURY_TEST_CHROMIUM ?? "/usr/bin/chromium";

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))];
};
const round = (value) => Math.round(value * 10) / 10;

// --- a streaming model server that records when each token was written ---------------------------
const sentAt = new Map();
const streamQueue = [];
const model = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", async () => {
    if (!req.url?.endsWith("/chat/completions")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ data: [{ id: "bench-model", object: "model" }] }));
      return;
    }
    const tokens = streamQueue.shift() ?? ["ok"];
    res.writeHead(200, { "content-type": "text/event-stream" });
    const chunk = (delta, finish = null, usage) =>
      `data: ${JSON.stringify({
        id: "bench",
        object: "chat.completion.chunk",
        created: 0,
        model: "bench-model",
        choices: [{ index: 0, delta, finish_reason: finish }],
        ...(usage ? { usage } : {}),
      })}\n\n`;
    res.write(chunk({ role: "assistant", content: "" }));
    for (const token of tokens) {
      await new Promise((done) => setTimeout(done, gapMs));
      sentAt.set(token.trim(), Date.now());
      res.write(chunk({ content: token }));
    }
    res.write(
      chunk({}, "stop", {
        prompt_tokens: 10,
        completion_tokens: tokens.length,
        total_tokens: 10 + tokens.length,
      }),
    );
    res.end("data: [DONE]\n\n");
  });
});
await new Promise((done) => model.listen(0, "127.0.0.1", done));
const modelUrl = `http://127.0.0.1:${model.address().port}/v1`;

const home = mkdtempSync(join(tmpdir(), "mercury-bench-dashboard-"));
mkdirSync(join(home, "workspace"), { recursive: true });
writeFileSync(join(home, "config.yaml"), "memory:\n  enabled: false\n");
const env = {
  PATH: process.env.PATH,
  HOME: home,
  MERCURY_HOME: home,
  MERCURY_PROVIDER: "openai-compatible",
  MERCURY_BASE_URL: modelUrl,
  MERCURY_MODEL: "bench-model",
};
const run = (cliArgs) =>
  new Promise((done, fail) => {
    const child = spawn(process.execPath, [cli, ...cliArgs], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    child.on("close", (code) =>
      code === 0 ? done(out) : fail(new Error(`mercury ${cliArgs.join(" ")}: ${err}`)),
    );
  });

function rawGet(port, path, cookie) {
  return new Promise((done, fail) => {
    const started = performance.now();
    const req = request({ host: "127.0.0.1", port, path, headers: { cookie } }, (res) => {
      let bytes = 0;
      res.on("data", (chunk) => {
        bytes += chunk.length;
      });
      res.on("end", () => done({ ms: performance.now() - started, bytes, status: res.statusCode }));
    });
    req.on("error", fail);
    req.end();
  });
}

/** A terminal client on the daemon's socket: the baseline path for a token. */
function socketClient() {
  return new Promise((done, fail) => {
    const socket = connect(join(home, "mercury.sock"));
    const seen = new Map();
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      buffer += chunk;
      let index = buffer.indexOf("\n");
      while (index >= 0) {
        const message = JSON.parse(buffer.slice(0, index));
        buffer = buffer.slice(index + 1);
        index = buffer.indexOf("\n");
        if (message.type === "event" && message.event.type === "text-delta") {
          const token = message.event.text.trim();
          if (token !== "" && !seen.has(token)) seen.set(token, Date.now());
        }
      }
    });
    socket.once("connect", () => {
      socket.write(`${JSON.stringify({ type: "subscribe", id: "1" })}\n`);
      done({ seen, close: () => socket.end() });
    });
    socket.once("error", fail);
  });
}

let browser;
try {
  const started = JSON.parse(await run(["dashboard", "--port", "0", "--no-open", "--json"]));
  const port = Number(new URL(started.url).port);
  browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox", "--disable-gpu"] });

  // 1. First page load, in a fresh browser context each time (cold cache), right after login.
  const pageLoads = [];
  const rawLoads = [];
  let bytes = 0;
  for (let index = 0; index < loads; index++) {
    const link =
      index === 0
        ? started.loginUrl
        : JSON.parse(await run(["dashboard", "open", "--no-open", "--json"])).loginUrl;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(link, { waitUntil: "load" });
    const measured = await page.evaluate(() => {
      const [navigation] = performance.getEntriesByType("navigation");
      const resources = performance.getEntriesByType("resource");
      return {
        ms: navigation.loadEventEnd - navigation.startTime,
        bytes:
          navigation.encodedBodySize +
          resources.reduce((sum, entry) => sum + (entry.encodedBodySize ?? 0), 0),
      };
    });
    pageLoads.push(measured.ms);
    bytes = measured.bytes;
    const [cookie] = await context.cookies();
    rawLoads.push((await rawGet(port, "/", `${cookie.name}=${cookie.value}`)).ms);
    await context.close();
  }

  // 2. Token → browser, against token → terminal socket.
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(JSON.parse(await run(["dashboard", "open", "--no-open", "--json"])).loginUrl);
  await page.goto(`http://127.0.0.1:${port}/chat`);
  await page.locator('body[data-stream="live"]').waitFor();
  await page.evaluate(() => {
    window.seenAt = {};
    new MutationObserver(() => {
      const answer = document.querySelector(".assistant-message");
      if (!answer) return;
      for (const token of (answer.textContent ?? "").split(" ")) {
        if (token !== "" && !(token in window.seenAt)) window.seenAt[token] = Date.now();
      }
    }).observe(document.getElementById("chat-log"), { childList: true, subtree: true, characterData: true });
  });
  const tokens = Array.from({ length: tokenCount }, (_, index) => `t${String(index).padStart(3, "0")} `);
  streamQueue.push(tokens);
  const terminal = await socketClient();
  await page.locator("#chat-input").fill("stream please");
  await page.locator("#chat-input").press("Enter");
  await page.locator('.assistant-message[data-done="true"]').waitFor({ timeout: 120_000 });
  const browserSeen = await page.evaluate(() => window.seenAt);
  terminal.close();
  const toBrowser = [];
  const toTerminal = [];
  for (const token of tokens.map((value) => value.trim())) {
    const sent = sentAt.get(token);
    // The last token may be held until the next one proves it complete (word split): skip none, the
    // observer keys on whole words, so a token counts when its word is complete in the page.
    if (sent !== undefined && browserSeen[token] !== undefined) toBrowser.push(browserSeen[token] - sent);
    if (sent !== undefined && terminal.seen.has(token)) toTerminal.push(terminal.seen.get(token) - sent);
  }
  const result = {
    machine: { load1: round(loadavg()[0]), chromium: chromiumPath },
    firstPageLoad: {
      runs: loads,
      browserMedianMs: round(percentile(pageLoads, 0.5)),
      browserP95Ms: round(percentile(pageLoads, 0.95)),
      bytes,
      bareHttpGetMedianMs: round(percentile(rawLoads, 0.5)),
      ratio: round(percentile(pageLoads, 0.5) / percentile(rawLoads, 0.5)),
    },
    tokenToScreen: {
      tokens: toBrowser.length,
      gapMs,
      browserMedianMs: percentile(toBrowser, 0.5),
      browserP95Ms: percentile(toBrowser, 0.95),
      terminalSocketMedianMs: percentile(toTerminal, 0.5),
      terminalSocketP95Ms: percentile(toTerminal, 0.95),
      extraOverTerminalMedianMs: percentile(toBrowser, 0.5) - percentile(toTerminal, 0.5),
    },
  };
  if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    const { firstPageLoad: load, tokenToScreen: token } = result;
    process.stdout.write(
      `first page load (status page, cold context, ${load.runs} runs): median ${load.browserMedianMs} ms, p95 ${load.browserP95Ms} ms, ${load.bytes} bytes (HTML+JS+CSS)\n` +
        `  bare HTTP GET of the same page: median ${load.bareHttpGetMedianMs} ms (browser/bare ${load.ratio}×)\n` +
        `token → browser (${token.tokens} tokens, ${token.gapMs} ms apart): median ${token.browserMedianMs} ms, p95 ${token.browserP95Ms} ms\n` +
        `  token → terminal socket client: median ${token.terminalSocketMedianMs} ms, p95 ${token.terminalSocketP95Ms} ms (browser adds ${token.extraOverTerminalMedianMs} ms)\n` +
        `load average ${result.machine.load1}\n`,
    );
  }
} finally {
  await browser?.close();
  await run(["stop"]).catch((error) =>
    process.stderr.write(`stopping the daemon failed: ${error.message}\n`),
  );
  model.close();
  rmSync(home, { recursive: true, force: true });
}
