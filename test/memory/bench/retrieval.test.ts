import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, describe, expect, it } from "vitest";
import { registerBenchCommands } from "../../../src/cli/commands/bench.js";
import {
  BenchDataError,
  loadLocomo,
  normalizeEvidenceId,
  parseLocomo,
  parseSessionTime,
} from "../../../src/memory/bench/locomo.js";
import { runRetrievalBench } from "../../../src/memory/bench/retrieval.js";
import { conversationDocuments, roleOf, turnText } from "../../../src/memory/bench/retrievers.js";
import { episodeDocument } from "../../../src/memory/store/episodes.js";

const directory = mkdtempSync(join(tmpdir(), "mercury-bench-test-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A tiny LoCoMo-format conversation whose questions have exactly known answers. */
function tinyData(): unknown {
  return [
    {
      sample_id: "conv-test",
      conversation: {
        speaker_a: "Ann",
        speaker_b: "Bob",
        session_1_date_time: "1:00 pm on 1 May, 2023",
        session_1: [
          { speaker: "Ann", dia_id: "D1:1", text: "I adopted a kitten named Pixel last week." },
          { speaker: "Bob", dia_id: "D1:2", text: "Congrats! I started learning the cello." },
          {
            speaker: "Ann",
            dia_id: "D1:3",
            text: "Look at this",
            blip_caption: "a photo of a lighthouse at dusk",
          },
        ],
        session_2_date_time: "9:00 am on 3 June, 2023",
        // A date key without its session must not break anything.
        session_3_date_time: "10:00 am on 4 July, 2023",
        session_2: [
          { speaker: "Bob", dia_id: "D2:1", text: "My cello teacher moved to Vienna." },
          { speaker: "Ann", dia_id: "D2:2", text: "Pixel knocked over my coffee again." },
        ],
      },
      qa: [
        { question: "What is the name of Ann's kitten?", answer: "Pixel", evidence: ["D1:1"], category: 4 },
        {
          question: "Where did Bob's cello teacher move?",
          answer: "Vienna",
          evidence: ["D:2:01"],
          category: 1,
        },
        {
          question: "What did Ann photograph?",
          answer: "a lighthouse",
          evidence: ["D1:3; D9:9"],
          category: 2,
        },
        { question: "Which instrument?", answer: "cello", evidence: ["D1:2 D2:1"], category: 3 },
        { question: "Unanswerable", evidence: ["D1:1"], category: 5 },
        { question: "No valid evidence", answer: "x", evidence: ["D7:7", "nonsense"], category: 4 },
      ],
    },
  ];
}

describe("LoCoMo loading", () => {
  it("normalizes evidence ids", () => {
    expect(normalizeEvidenceId("D1:3")).toBe("D1:3");
    expect(normalizeEvidenceId("D:1:3")).toBe("D1:3");
    expect(normalizeEvidenceId("D01:003")).toBe("D1:3");
    expect(normalizeEvidenceId("d2:4")).toBe("D2:4");
    expect(normalizeEvidenceId("S1:3")).toBeUndefined();
    expect(normalizeEvidenceId("D1")).toBeUndefined();
  });

  it("keeps categories 1-4, splits and filters evidence, skips questions left without any", () => {
    const [conversation] = parseLocomo(tinyData());
    expect(conversation?.sessions.map((s) => s.index)).toEqual([1, 2]);
    expect(conversation?.questions.map((q) => q.evidence)).toEqual([
      ["D1:1"],
      ["D2:1"],
      ["D1:3"],
      ["D1:2", "D2:1"],
    ]);
    expect(conversation?.skipped).toBe(1);
  });

  it("rejects data that is not LoCoMo-shaped with a clear error", () => {
    expect(() => parseLocomo({ not: "an array" })).toThrow(BenchDataError);
    expect(() => parseLocomo([{ sample_id: "x", conversation: { session_1: "oops" }, qa: [] }])).toThrow(
      /session_1/,
    );
    const bad = join(directory, "bad.json");
    writeFileSync(bad, "{ not json");
    expect(() => loadLocomo(bad)).toThrow(/not JSON/);
    expect(() => loadLocomo(join(directory, "missing.json"))).toThrow(/cannot read/);
  });

  it("builds a turn's document from speaker, text and caption; the session's time as occurredAt", () => {
    const [conversation] = parseLocomo(tinyData());
    const session = conversation?.sessions[0];
    const turn = session?.turns[2];
    if (!conversation || !session || !turn) throw new Error("fixture broken");
    expect(turnText(turn, session, false)).toBe(
      "Ann: Look at this [shared an image: a photo of a lighthouse at dusk]",
    );
    expect(turnText(turn, session, true)).toMatch(/\(1:00 pm on 1 May, 2023\)$/);
    const { docs } = conversationDocuments(conversation);
    expect(docs[2]?.occurredAt).toBe("2023-05-01T13:00:00.000Z");
    expect(docs[2]?.speaker).toBe("Ann");
    // Each neighbouring turn is one context part; the second neighbour weighs 0.7 of the first.
    const parts = docs[2]?.context;
    if (!Array.isArray(parts)) throw new Error("expected the context as weighted parts");
    expect(parts.some((part) => part.text.includes("cello") && part.weight === 1)).toBe(true);
    const farther = docs[0]?.context;
    if (!Array.isArray(farther)) throw new Error("expected the context as weighted parts");
    expect(farther.map((part) => part.weight)).toEqual([1, 0.7]);
    // The session's number is the turn's session key, as the live store's session id would be.
    expect(docs.map((doc) => doc.session)).toEqual(["1", "1", "1", "2", "2"]);
  });

  it("builds a turn's document as the live store builds a recorded turn's", () => {
    const [conversation] = parseLocomo(tinyData());
    const session = conversation?.sessions[0];
    if (!conversation || !session) throw new Error("fixture broken");
    const { docs } = conversationDocuments(conversation);
    const texts = session.turns.map((turn) =>
      turn.blip_caption ? `${turn.text} [shared an image: ${turn.blip_caption}]` : turn.text,
    );
    const live = episodeDocument(
      { id: 2, userKey: "owner", sessionId: "1", role: "user", speaker: "Bob", text: texts[1] as string },
      { before: [texts[0] as string], after: [texts[2] as string] },
    );
    const bench = docs[1];
    expect(bench?.text).toBe(live.text);
    expect(bench?.speaker).toBe(live.speaker);
    expect(bench?.context).toEqual(live.context);
    // A chat with the assistant gives its turns roles; a conversation between two people does not.
    expect(roleOf("User")).toBe("user");
    expect(roleOf("Assistant")).toBe("assistant");
    expect(bench?.role).toBeUndefined();
  });

  it("reads the data's session times as UTC, and nothing else", () => {
    expect(parseSessionTime("1:56 pm on 8 May, 2023")).toBe("2023-05-08T13:56:00.000Z");
    expect(parseSessionTime("12:05 am on 20 May, 2023")).toBe("2023-05-20T00:05:00.000Z");
    expect(parseSessionTime("12:30 pm on 1 January, 2024")).toBe("2024-01-01T12:30:00.000Z");
    expect(parseSessionTime("2023-05-08")).toBeUndefined();
    expect(parseSessionTime("1:56 pm on 8 Smarch, 2023")).toBeUndefined();
    expect(parseSessionTime(undefined)).toBeUndefined();
  });
});

describe("runRetrievalBench", () => {
  it("measures the known rankings of the tiny data set", async () => {
    const report = await runRetrievalBench(parseLocomo(tinyData()));
    expect(report.questions).toBe(4);
    expect(report.documents).toBe(5);
    expect(report.skippedQuestions).toBe(1);
    // Three questions find their single evidence turn first; "Which instrument?" shares no word
    // with any turn, so it finds nothing: recall 3/4 at every k, nDCG (1 + 1 + 1 + 0) / 4.
    expect(report.recallAt).toEqual({ "1": 0.75, "5": 0.75, "10": 0.75, "20": 0.75, "50": 0.75 });
    expect(report.ndcgAt10).toBe(0.75);
    expect(report.recallAt10ByCategory).toEqual({ "1": 1, "2": 1, "3": 0, "4": 1 });
    expect(report.latencyMs.p95).toBeGreaterThanOrEqual(report.latencyMs.p50);
  });

  it("refuses data with nothing to measure", async () => {
    const data = tinyData() as { qa: unknown[] }[];
    const first = data[0];
    if (first) first.qa = [];
    await expect(runRetrievalBench(parseLocomo(data))).rejects.toThrow(/no question/);
  });
});

describe("mercury bench retrieval (command)", () => {
  async function run(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    let code = -1;
    const program = new Command().exitOverride();
    registerBenchCommands(program, {
      stdout: (text) => out.push(text),
      stderr: (text) => err.push(text),
      setExitCode: (value) => {
        code = value;
      },
    });
    await program.parseAsync(["node", "mercury", ...args]);
    return { out, err, code };
  }

  it("prints exactly one JSON document: per data set, mercury beside plain FTS5, and the ablation", async () => {
    const file = join(directory, "tiny.json");
    writeFileSync(file, JSON.stringify(tinyData()));
    const { out, code } = await run([
      "bench",
      "retrieval",
      "--data",
      file,
      "--data",
      file,
      "--ablation",
      "--json",
    ]);
    expect(code).toBe(0);
    expect(out.length).toBe(1);
    const document = JSON.parse(out[0] ?? "") as { datasets: Record<string, unknown>[] };
    expect(document.datasets.length).toBe(2);
    for (const dataset of document.datasets) {
      expect(dataset.data).toBe(file);
      for (const retriever of ["mercury", "plainFts5Porter"]) {
        const report = dataset[retriever] as Record<string, unknown>;
        for (const key of ["questions", "recallAt", "ndcgAt10", "recallAt10ByCategory", "latencyMs"])
          expect(report).toHaveProperty(key);
        expect(Object.keys(report.recallAt as object)).toEqual(["1", "5", "10", "20", "50"]);
        expect(Object.keys(report.recallAt10ByCategory as object)).toEqual(["1", "2", "3", "4"]);
        expect(Object.keys(report.latencyMs as object)).toEqual(["p50", "p95"]);
      }
      const ablation = dataset.ablation as { variant: string; report: { questions: number } }[];
      expect(ablation[0]?.variant).toBe("default");
      expect(ablation.length).toBeGreaterThan(5);
      for (const row of ablation) expect(row.report.questions).toBe(4);
    }
  });

  it("exits 2 with the cause when the data file is missing or malformed", async () => {
    const missing = await run(["bench", "retrieval", "--data", join(directory, "nope.json")]);
    expect(missing.code).toBe(2);
    expect(missing.err.join("\n")).toMatch(/cannot read/);
    expect(missing.out).toEqual([]);
  });
});
