import type { ModelMessage } from "../../model/types.js";
import { readTestOutput } from "./test-summary.js";

/**
 * What a final answer claims about work the task did: that checks pass or were run ("All tests pass",
 * "I ran the tests", "测试全部通过"), or that something was changed ("I fixed the bug", "已修复").
 * Read only when the task changed no file, so the gate can say beside the answer that the claim is
 * not borne out (see `unsupportedClaim`). A sentence that only conditions, asks, negates, instructs or
 * recalls earlier work ("if all tests pass…", "did the tests pass?", "I did not run the tests",
 * "make sure the build succeeds", "I fixed that earlier") is no claim: plain conversation is never
 * flagged. Text in code, quotes or backticks is the subject of the answer, not a claim.
 */
export type ClaimKind = "checks" | "change";

export interface AnswerClaim {
  kind: ClaimKind;
  /** The sentence that makes it, trimmed, for the note. */
  sentence: string;
}

const checkNouns =
  "(?:unit |integration |end-to-end |e2e |the |all |every |both |remaining |\\d+(?:/\\d+)? )*(?:tests?|test suite|test cases?|specs?|checks?|builds?|type-?checks?|typecheck|linters?|lint|ci|pipeline|suite|(?:npm|yarn|pnpm) (?:run )?test|pytest|cargo test|go test|make (?:test|check)|vitest|jest)";

const checkClaims: RegExp[] = [
  // English: "all tests pass", "the build succeeds", "tests are green", "the test suite is passing".
  new RegExp(
    `\\b${checkNouns}\\s+(?:now\\s+|all\\s+|still\\s+)*(?:pass(?:es|ed|ing)?|succeed(?:s|ed)?|(?:now\\s+)?(?:runs?|ran|completes?|completed)\\s+(?:cleanly|clean|successfully)|(?:are|is|were|was)\\s+(?:now\\s+|all\\s+)?(?:passing|green|clean|successful|ok))\\b`,
    "i",
  ),
  /\bpass(?:es|ed)? all (?:the )?(?:tests?|checks?|specs?)\b/i,
  /\b(?:all )?green\b.*\b(?:tests?|checks?|ci)\b|\b(?:tests?|checks?|ci)\b.*\ball green\b/i,
  new RegExp(
    `\\bI(?:['’]ve| have)?\\s+(?:now\\s+|also\\s+|just\\s+)?(?:ran|run|re-?ran|re-?run|executed)\\s+${checkNouns}`,
    "i",
  ),
  /\bI(?:['’]ve| have)?\s+(?:now\s+|also\s+)?(?:verified|confirmed|tested)\s+(?:that\s+)?(?:it|the (?:fix|change|code|build|tests?)|everything)\s+(?:works?|pass(?:es)?|compiles?|builds?)\b/i,
  /\b(?:verified|confirmed) (?:that )?(?:it|the (?:fix|change|build|tests?)) (?:works?|pass(?:es)?|compiles?)\b/i,
  /\b(?:0|zero|no) (?:tests? )?failures?\b/i,
  // Session 11: "everything passes", "npm test exits 0", "I re-ran npm test and everything is green".
  /\beverything (?:now )?(?:pass(?:es|ed)?|is (?:now )?(?:green|passing))\b/i,
  /\b(?:tests?|checks?|builds?|npm|yarn|pnpm|pytest|cargo|make|go|vitest|jest)\b.*\bexit(?:s|ed)? (?:with )?(?:code |status )?0\b/i,
  /\bI(?:['’]ve| have)?\s+(?:now\s+|also\s+|just\s+)?(?:ran|run|re-?ran|re-?run|executed)\b.*\b(?:green|pass(?:es|ed)?|succeeded|succeeds)\b/i,
  // Chinese, Japanese.
  /(?:测试|測試|單元測試|测试用例|测试套件|构建|編譯|编译|检查)(?:已经|已|都|全部|均|全都)*(?:通过|通過|成功)/,
  /(?:所有|全部)(?:的)?(?:测试|測試|检查)/,
  /我(?:已经|已)?(?:运行|跑|執行|执行)(?:了)?(?:所有)?(?:的)?(?:测试|測試|检查)/,
  /テスト(?:は|が)?(?:すべて|全て|全部)?(?:通り|通っ|成功し|パスし)/,
  // Russian, Korean (session 11).
  /(?:^|[\s,:])(?:все\s+)?тест\S*\s+(?:теперь\s+|уже\s+)?(?:проходят|пройдены|прошли|зелёные|успешны)/i,
  /테스트.*(?:통과|성공)/,
  // German, Spanish, French, Portuguese, Italian.
  /\b(?:alle )?Tests? (?:sind |laufen |ist )?(?:jetzt )?(?:bestanden|erfolgreich|grün|durch)\b/i,
  /\bich habe (?:die |alle )?Tests (?:ausgeführt|laufen lassen)\b/i,
  /\b(?:todas las |las |los )?(?:pruebas|tests?) (?:ya )?(?:pasan|pasaron|han pasado|son exitos[ao]s)\b/i,
  /\bhe (?:ejecutado|corrido) (?:las |los |todas las )?(?:pruebas|tests?)\b/i,
  /\b(?:tous )?les tests (?:passent|sont (?:verts|réussis|au vert))\b/i,
  /\bj['’]ai (?:exécuté|lancé|relancé) (?:les |tous les )?tests\b/i,
  /\b(?:todos )?os testes (?:passam|passaram)\b/i,
  /\b(?:tutti )?i test (?:passano|sono passati)\b/i,
];

const changeClaims: RegExp[] = [
  // English: "I fixed", "I've updated the file", "the bug is fixed", "Fixed the typo."
  /\bI(?:['’]ve| have)?\s+(?:now\s+|also\s+|just\s+|successfully\s+|went ahead and\s+|gone ahead and\s+)*(?:fixed|implemented|updated|written|wrote|created|added|modified|changed|edited|patched|refactored|removed|deleted|renamed|saved|applied|corrected|resolved|repaired|rewritten|rewrote)\b/i,
  /\b(?:it|this|that|the (?:bug|issue|problem|error|typo|file|test|code|function))(?:['’]s| is| has been| was| now is)\s+(?:now\s+)?(?:fixed|resolved|repaired|corrected|updated|written)\b/i,
  /^(?:fixed|implemented|updated|patched|corrected|resolved|done)\b(?!\?)/i,
  /\b(?:changes|fix|edits?) (?:have been|has been|were|was) (?:applied|made|saved|written)\b/i,
  // Session 11: "I made the change", "I've made the fix", "Changes applied to src/a.js."
  /\bI(?:['’]ve| have)?\s+(?:now\s+|also\s+|just\s+)*(?:made|applied|committed|pushed) (?:the |a |my |these |those |all (?:the )?)?(?:changes?|fix(?:es)?|edits?|updates?|corrections?)\b/i,
  /^(?:changes?|fix(?:es)?|edits?|updates?) (?:applied|made|saved|written|committed)\b/i,
  // Russian, Korean.
  /(?:^|[\s,:])я\s+(?:уже\s+)?(?:исправил|исправила|изменил|изменила|обновил|обновила|починил|починила|добавил|добавила)/i,
  /(?:исправлено|починено|обновлено)/i,
  /(?:수정|고쳤|변경|업데이트)(?:했습니다|했어요|했다|완료)/,
  // Chinese, Japanese.
  /(?:已经|已)(?:修复|修復|修改|更新|写入|寫入|创建|實現|实现|完成|解决|解決|改好|修好)/,
  /我(?:修复|修復|修改|更新|写|创建|实现|解决)了/,
  /修(?:好|复)了/,
  /(?:修正|修復|更新|作成|実装)しました/,
  // German, Spanish, French, Portuguese, Italian.
  /\bich habe (?:den |die |das )?\w*\s*(?:behoben|korrigiert|repariert|geändert|aktualisiert|geschrieben|erstellt|implementiert)\b/i,
  /\b(?:ist|wurde) (?:jetzt )?(?:behoben|korrigiert|repariert)\b/i,
  /\bhe (?:corregido|arreglado|solucionado|actualizado|escrito|creado|implementado|modificado)\b/i,
  /\b(?:está|quedó) (?:arreglado|corregido|solucionado)\b/i,
  /\bj['’]ai (?:corrigé|réparé|modifié|mis à jour|écrit|créé|implémenté|résolu)(?![\wÀ-ɏ])/i,
  /\b(?:c['’]est|est) (?:maintenant )?(?:corrigé|réparé|résolu)(?![\wÀ-ɏ])/i,
  /\b(?:eu )?(?:corrigi|consertei|atualizei|implementei)\b/i,
  /\bho (?:corretto|sistemato|risolto|aggiornato|implementato)\b/i,
];

/**
 * Words that make a sentence no claim of this task's work: conditions, questions, negations,
 * instructions and advice, and references to earlier work.
 */
const notAClaim: RegExp[] = [
  /\b(?:if|once|when|whether|until|unless|after you|before you|make sure|ensure|should|would|could|might|may|need(?:s)? to|needs|to make|so that|let me know|you can|you could|please|try|expect(?:ed)?|hope|assuming|suppose|otherwise|whenever|as soon as)\b/i,
  /\b(?:not|never|no longer|cannot|can['’]t|couldn['’]t|didn['’]t|don['’]t|doesn['’]t|haven['’]t|hasn['’]t|wasn['’]t|weren['’]t|aren['’]t|isn['’]t|won['’]t|unable|without|yet to|fail(?:s|ed|ing)?)\b/i,
  /\b(?:earlier|previously|before this|last time|yesterday|in the previous|in an earlier|in my last)\b/i,
  /\b(?:you|we|they|he|she) (?:ran|run|fixed|updated|wrote|changed|created|added)\b/i,
  // Reported, not claimed: what a file, a log or someone says.
  /\b(?:log|logs|according to|says|said|shows|showed|reports?|reported|output|readme|documentation|docs)\b/i,
  /^(?:run|make|fix|update|add|check|verify|write|create|change|edit|rerun|re-run)\b/i,
  // Chinese, Japanese: if, whether, not, please, should, need, can, earlier.
  /如果|假如|一旦|是否|吗|嗎|没有|沒有|未|不|别|请|請|应该|應該|需要|可以|之前|以前|上次|もし|ません|ない|ください/,
  // German, Spanish, French, Portuguese, Italian.
  /\b(?:wenn|falls|ob|nicht|kein\w*|sollte\w*|bitte|vorher|noch nicht)\b/i,
  /\b(?:si|cuando|no|nunca|debería\w*|asegúr\w*|antes|todavía no|aún no)\b/i,
  /\b(?:si|quand|ne|pas|jamais|devrai\w*|assurez|avant|pas encore)\b/i,
  /\b(?:se|quando|não|nunca|deve\w*|antes)\b/i,
  /\b(?:se|quando|non|mai|dovrebbe\w*|prima)\b/i,
  // Russian, Korean: not, if, need; Korean negation.
  /(?:^|\s)(?:не|если|нужно|надо|ли)(?=\s|$)/i,
  /않|못|\s안\s/,
];

/** Negation is no claim, except in claims made of it ("0 failed", "no failing tests", "without errors"). */
const negation = notAClaim[1];
const negatedClaims: RegExp[] = [
  /\b(?:0|zero|no) (?:tests? )?fail(?:ures?|ed|ing)\b/i,
  /\bno failing (?:tests?|checks?|specs?)\b/i,
  /\b[1-9]\d* passed,? 0 failed\b/i,
  /\b(?:pass(?:es|ed)?|ran|runs?|succeed(?:s|ed)?|completes?|completed)\b.*\bwithout (?:any )?(?:errors?|failures?)\b/i,
];

/** A change made to the answer itself ("I've updated the list below"). */
const aboutTheAnswer =
  /\b(?:below|above|here|following|this (?:answer|reply|message|list|summary))\b|以下|如下/i;

/** Sentences of the answer, without code, quoted text and inline code (what the answer is about). */
function sentences(text: string): string[] {
  const plain = text
    .replace(/```[\s\S]*?(?:```|$)/g, " ")
    .replace(/`[^`\n]*`/g, " ")
    .replace(/"[^"\n]*"|“[^”\n]*”|«[^»\n]*»|「[^」\n]*」|'[^'\n]{3,}'(?=[\s.,;:!?]|$)/g, " ")
    .split("\n")
    .filter((line) => !/^\s*>/.test(line))
    .join("\n");
  return plain
    .split(/(?<=[.!?。！？；;])\s*|\n+/)
    .map((sentence) => sentence.replace(/^[\s*\-•#>\d.)]+/, "").trim())
    .filter((sentence) => sentence !== "");
}

/** The claims the answer makes, first of each kind (checks before change). */
export function claimsInAnswer(text: string): AnswerClaim[] {
  const found: AnswerClaim[] = [];
  // "I've added type annotations:" above a code block is about the answer's own code, not a file.
  const showsCode = /```/.test(text);
  for (const sentence of sentences(text)) {
    if (/[?？]$/.test(sentence)) continue;
    if (notAClaim.some((pattern) => pattern !== negation && pattern.test(sentence))) continue;
    const negated = negation?.test(sentence) === true;
    if (
      negated &&
      !found.some((claim) => claim.kind === "checks") &&
      negatedClaims.some((p) => p.test(sentence))
    ) {
      found.push({
        kind: "checks",
        sentence: sentence.length > 120 ? `${sentence.slice(0, 120)}…` : sentence,
      });
      continue;
    }
    if (negated) continue;
    const shown = sentence.length > 120 ? `${sentence.slice(0, 120)}…` : sentence;
    if (
      !found.some((claim) => claim.kind === "checks") &&
      checkClaims.some((pattern) => pattern.test(sentence))
    )
      found.push({ kind: "checks", sentence: shown });
    else if (
      !showsCode &&
      !aboutTheAnswer.test(sentence) &&
      !found.some((claim) => claim.kind === "change") &&
      changeClaims.some((pattern) => pattern.test(sentence))
    )
      found.push({ kind: "change", sentence: shown });
  }
  return found.sort((left, right) => (left.kind === right.kind ? 0 : left.kind === "checks" ? -1 : 1));
}

/** Tools that only look: a task that called nothing else changed nothing, whatever it says. */
const lookingTools = new Set([
  "read_file",
  "list_dir",
  "search_files",
  "web_fetch",
  "memory_search",
  "update_plan",
  "ask_user",
]);

/** A command that runs a check by its words (a test runner, a build, a type check, a linter). */
const checkCommand =
  /\b(?:test|tests|spec|check|lint|build|tsc|typecheck|pytest|vitest|jest|mocha|tap|ava|cargo|go vet|go test|make|ctest|rspec|phpunit|mvn|gradle|tox|nox|deno)\b/i;

export interface TaskActions {
  /** A tool that may change something (anything but a look) succeeded in the task. */
  acted: boolean;
  /**
   * Check-like commands the task ran, in order, with their exit codes (null: did not finish), and
   * why an exit 0 is no pass when it is not (its status masked, its output reporting failures).
   */
  checks: { command: string; exitCode: number | null; doubt?: string }[];
}

/** What the task's own messages show it did: which calls succeeded and which check-like commands ran. */
export function taskActions(messages: readonly ModelMessage[]): TaskActions {
  const calls = new Map<string, { toolName: string; command: string | null }>();
  const actions: TaskActions = { acted: false, checks: [] };
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (part.type === "tool-call") {
        const input = part.input as { command?: unknown } | null;
        const command = typeof input?.command === "string" ? input.command : null;
        calls.set(part.toolCallId, { toolName: part.toolName, command });
      } else if (part.type === "tool-result") {
        const call = calls.get(part.toolCallId);
        const toolName = call?.toolName ?? part.toolName;
        const output = part.output as { type?: string; value?: unknown };
        const ok = output.type === "text" || output.type === "json";
        if (ok && !lookingTools.has(toolName)) actions.acted = true;
        if (toolName === "run_command" && call?.command && checkCommand.test(call.command)) {
          const value = typeof output.value === "string" ? output.value : "";
          const code = /^exit code: (-?\d+)/.exec(value)?.[1];
          const exitCode = ok && code !== undefined ? Number(code) : null;
          const doubt = exitCode === 0 ? passDoubt(call.command, value) : null;
          actions.checks.push({ command: call.command, exitCode, ...(doubt ? { doubt } : {}) });
        }
      }
    }
  }
  return actions;
}

/** A check's exit status thrown away (`npm test || true`, `pytest; exit 0`) is no evidence of a pass. */
const maskedStatus = /(?:\|\||;|&)\s*(?:true|:|exit\s+0)\s*(?:[;)]\s*)?$|\|\|\s*echo\b/;
/** A command that only prints (`echo "all tests pass"`) names a check without running one. */
const printsOnly = /^\s*(?:echo|printf)\b[^;&|]*$/;

/** Why an exit 0 of a check-like command is no pass, or null when it is one (session 11). */
function passDoubt(command: string, output: string): string | null {
  if (printsOnly.test(command)) return "only printed text (no check ran)";
  if (maskedStatus.test(command)) return "exited 0 only because its status was masked";
  const says = readTestOutput(output);
  if (says === "failures") return "exited 0 but its output reports failures";
  if (says === "no tests") return "exited 0 but ran no tests";
  return null;
}

/**
 * The note for an answer whose claim the task's record does not bear out, or null. The task changed
 * no file; `checkPassed` says whether its last verification run passed (none ran: false).
 */
export function unsupportedClaim(text: string, actions: TaskActions, checkPassed: boolean): string | null {
  for (const claim of claimsInAnswer(text)) {
    if (claim.kind === "checks") {
      const last = actions.checks.at(-1);
      const lastPassed = last?.exitCode === 0 && last.doubt === undefined;
      if (checkPassed && (!last || lastPassed)) continue;
      if (!checkPassed && lastPassed) continue;
      const how = (run: NonNullable<typeof last>) =>
        run.doubt ?? (run.exitCode === null ? "did not finish" : `exited ${run.exitCode}`);
      const why = last
        ? `the last check this task ran, \`${shorten(last.command)}\`, ${how(last)}`
        : "no check ran in this task";
      return `nothing was changed and ${why}; the answer's claim ("${claim.sentence}") is not verified`;
    }
    if (!actions.acted)
      return `nothing was changed (no file changed and no tool that changes anything succeeded in this task); the answer's claim ("${claim.sentence}") is not borne out`;
  }
  return null;
}

function shorten(command: string): string {
  const line = command.split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}
