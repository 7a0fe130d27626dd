import { afterEach, beforeEach } from "vitest";
import type { DaemonHome } from "../daemon/daemon-helpers.js";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../fakes/openai-server.js";
import { FakeTelegramServer } from "../fakes/telegram-server.js";

/** What a daemon test holds: a loopback model, the daemon home it started (if any), a fake Telegram. */
export interface DaemonFixture {
  server: FakeOpenAIServer;
  /** Set by the test to the home it started; cleaned up (and stopped, if asked) after each test. */
  current: DaemonHome | null;
  /** Only with `{ telegram: true }`. */
  telegram: FakeTelegramServer;
}

/**
 * A fresh loopback model (and fake Telegram when asked) before each test, and after it the daemon the
 * test started is stopped (when asked) and its home removed, then the fakes closed.
 */
export function useDaemonFixture(options: { telegram?: boolean; stopDaemon?: boolean } = {}): DaemonFixture {
  const fixture = { current: null } as DaemonFixture;
  beforeEach(async () => {
    fixture.server = await startFakeOpenAIServer({ replies: [] });
    if (options.telegram) fixture.telegram = await FakeTelegramServer.start();
  });
  afterEach(async () => {
    if (options.stopDaemon && fixture.current) await fixture.current.cli(["stop"]);
    await fixture.current?.cleanup();
    fixture.current = null;
    if (options.telegram) await fixture.telegram.close();
    await fixture.server.close();
  });
  return fixture;
}
