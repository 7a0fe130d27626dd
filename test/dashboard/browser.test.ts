import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type DaemonHome, daemonHome, subscribe, waitFor } from "../daemon/daemon-helpers.js";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../fakes/openai-server.js";

/**
 * The dashboard in a real Chromium (Debian's, driven by playwright-core; nothing is downloaded),
 * against a daemon started by the built binary with the loopback model server. One browser and one
 * daemon for the file: Chromium is heavy on a shared 2-core machine.
 */
const chromiumPath = process.env.MERCURY_TEST_CHROMIUM ?? "/usr/bin/chromium";
const artifacts = resolve(import.meta.dirname, "../../test-artifacts/dashboard");

let model: FakeOpenAIServer;
let daemon: DaemonHome;
let browser: Browser;
let page: Page;
let origin = "";

async function shoot(name: string): Promise<void> {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  if (!existsSync(chromiumPath))
    throw new Error(
      `no Chromium at ${chromiumPath}: install Debian's chromium (apt-get install chromium; .ci/run does)`,
    );
  mkdirSync(artifacts, { recursive: true });
  model = await startFakeOpenAIServer({ replies: [] });
  daemon = daemonHome(model.url);
  // Memory on (the memory page), extraction only when asked (it would take the scripted replies).
  writeFileSync(
    join(daemon.home, "config.yaml"),
    "retry:\n  attempts: 3\n  baseDelayMs: 10\n  maxDelayMs: 50\nmemory:\n  enabled: true\n  extractAutomatically: false\n",
  );
  browser = await chromium.launch({
    executablePath: chromiumPath,
    // Tests run as root in CI containers, where Chromium's own sandbox cannot start.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  page = await context.newPage();
  page.setDefaultTimeout(100_000);
  page.on("dialog", (dialog) => {
    void dialog.accept();
  });
});

// A failing step leaves its page behind: the screenshot and the text say what the browser saw.
afterEach(async (context) => {
  if (context.task.result?.state !== "fail" || !page) return;
  await page.screenshot({
    path: join(artifacts, `failed-${context.task.name.slice(0, 40)}.png`),
    fullPage: true,
  });
  process.stderr.write(
    `page at failure: ${page.url()}\n${(await page.locator("body").innerText()).slice(0, 3000)}\n`,
  );
});

afterAll(async () => {
  await browser?.close();
  await daemon?.cleanup();
  await model?.close();
});

describe("the dashboard in Chromium", () => {
  it("logs in with the one-time link, and the token leaves the address bar", async () => {
    const started = await daemon.cli(["dashboard", "--port", "0", "--no-open", "--json"]);
    expect(started.code, started.stderr).toBe(0);
    const { loginUrl, url } = JSON.parse(started.stdout) as { loginUrl: string; url: string };
    origin = url.replace(/\/$/, "");
    await page.goto(loginUrl);
    expect(page.url()).toBe(`${origin}/`);
    expect(await page.locator("h1").textContent()).toBe("Status");
    const cookies = await page.context().cookies();
    expect(cookies.find((cookie) => cookie.name === "mercury_dashboard")).toMatchObject({
      httpOnly: true,
      sameSite: "Strict",
    });
    await shoot("status");
    // The same link a second time: refused.
    const again = await page.context().newPage();
    const response = await again.goto(loginUrl);
    expect(response?.status()).toBe(401);
    await again.close();
  });

  it("searches a memory, forgets it, and it is gone from the page and the CLI", async () => {
    const added = await daemon.cli(["memory", "add", "My bike lock code is 3141", "--json"]);
    expect(added.code, added.stderr).toBe(0);
    await daemon.cli(["memory", "add", "I prefer green tea", "--json"]);
    await page.goto(`${origin}/memory?q=${encodeURIComponent("bike lock")}`);
    const row = page.locator("tr.memory", { hasText: "My bike lock code is 3141" });
    await row.waitFor();
    await shoot("memory");
    await row.getByRole("button", { name: "Forget" }).click();
    await page.locator(".notice", { hasText: "Forgotten: memory" }).waitFor();
    expect(await page.locator("tr.memory", { hasText: "bike lock" }).count()).toBe(0);
    await page.goto(`${origin}/memory?q=${encodeURIComponent("bike lock")}`);
    expect(await page.locator("tr.memory", { hasText: "bike lock" }).count()).toBe(0);
    const search = await daemon.cli(["memory", "search", "bike", "lock", "--json"]);
    expect(JSON.parse(search.stdout).results).toEqual([]);
    expect(JSON.stringify(daemon.query("SELECT text FROM memories"))).not.toContain("3141");
    await page.goto(`${origin}/memory`);
    expect(await page.locator("tr.memory", { hasText: "green tea" }).count()).toBe(1);
  });

  it("shows a pending command live, approves it once, the task goes on; an answer in the terminal clears the page", async () => {
    await page.goto(`${origin}/approvals`);
    await page.locator('body[data-stream="live"]').waitFor();
    model.push(
      { toolCalls: [{ name: "run_command", input: { command: "rm -rf build" } }] },
      { text: "The build directory is gone." },
    );
    const client = await daemon.connect();
    const pushes = await subscribe(client);
    const { taskId } = (await client.request({
      type: "submit",
      text: "clean the build",
      cwd: daemon.workspace,
    })) as { taskId: string };
    // The page reloads itself on the approval-request event.
    const pending = page.locator("tr.approval", { hasText: "rm -rf build" });
    await pending.waitFor({ timeout: 100_000 });
    await shoot("approvals");
    await pending.getByRole("button", { name: "Approve once" }).click();
    await page.locator(".notice", { hasText: "Answered: once" }).waitFor();
    await waitFor(
      () =>
        pushes.some(
          (push) => push.type === "event" && (push.event as { type: string }).type === "approval-resolved",
        ),
      15_000,
      "the terminal to hear the approval was answered",
    );
    await waitFor(
      () =>
        daemon.query<{ status: string }>("SELECT status FROM tasks WHERE id = ?", taskId)[0]?.status !==
        "running",
      15_000,
      "the task to finish",
    );

    // The other way round: answered in the terminal, the request leaves the open dashboard page.
    await page.goto(`${origin}/approvals`);
    await page.locator('body[data-stream="live"]').waitFor();
    model.push(
      { toolCalls: [{ name: "run_command", input: { command: "rm -rf dist" } }] },
      { text: "I left dist alone." },
    );
    const denied = (await client.request({ type: "submit", text: "clean dist", cwd: daemon.workspace })) as {
      taskId: string;
    };
    const second = page.locator("tr.approval", { hasText: "rm -rf dist" });
    await second.waitFor();
    const approvalId = await second.getAttribute("data-approval-id");
    await client.request({ type: "approve", approvalId: approvalId ?? "", decision: "deny" });
    await second.waitFor({ state: "detached" });
    await waitFor(
      () =>
        daemon.query<{ status: string }>("SELECT status FROM tasks WHERE id = ?", denied.taskId)[0]
          ?.status !== "running",
      15_000,
      "the denied task to finish",
    );
    client.close();
    await page.goto(`${origin}/tasks/${taskId}`);
    expect(await page.locator(".final-answer").textContent()).toBe("The build directory is gone.");
    expect(await page.locator(".task-status").textContent()).not.toContain("running");
    await page.locator(".tool-call", { hasText: "run_command" }).first().waitFor();
    await shoot("task");
    await page.goto(`${origin}/tasks`);
    await shoot("tasks");
  });

  it("streams a chat answer into the page as the model writes it", async () => {
    await page.goto(`${origin}/chat`);
    await page.locator('body[data-stream="live"]').waitFor();
    // Every change of the answer's text is recorded, to see it grow rather than appear whole.
    await page.evaluate(`(() => {
      const seen = [];
      window.seen = seen;
      new MutationObserver(() => {
        const answer = document.querySelector(".assistant-message");
        if (answer) seen.push(answer.textContent ?? "");
      }).observe(document.getElementById("chat-log"), { childList: true, subtree: true, characterData: true });
    })()`);
    model.push({ text: ["Streaming ", "answers ", "arrive ", "piece ", "by ", "piece."], chunkDelayMs: 40 });
    await page.locator("#chat-input").fill("say something <b>bold</b>");
    await page.locator("#chat-input").press("Enter");
    await page.locator('.assistant-message[data-done="true"]').waitFor();
    expect(await page.locator(".assistant-message").textContent()).toBe(
      "Streaming answers arrive piece by piece.",
    );
    expect(await page.locator(".user-message").textContent()).toBe("say something <b>bold</b>");
    const seen = (await page.evaluate("window.seen")) as string[];
    const distinct = [...new Set(seen)];
    expect(distinct.length).toBeGreaterThan(2);
    expect(distinct[0] && "Streaming answers arrive piece by piece.".startsWith(distinct[0])).toBe(true);
    await shoot("chat");
  });

  it("renders the remaining pages (usage, schedules/skills/MCP, logs)", async () => {
    for (const [path, name, heading] of [
      ["/usage", "usage", "Usage"],
      ["/work", "work", "Schedules · Skills · MCP"],
      ["/logs", "logs", "Logs"],
    ] as const) {
      const response = await page.goto(`${origin}${path}`);
      expect(response?.status()).toBe(200);
      expect(await page.locator("h1").textContent()).toBe(heading);
      await shoot(name);
    }
    expect(await page.locator("svg.chart").count()).toBe(0);
    await page.goto(`${origin}/usage`);
    expect(await page.locator("svg.chart").count()).toBe(2);
  });
});
