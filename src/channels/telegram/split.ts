/** Telegram's limit on the text of one message (after entity parsing), in UTF-16 code units. */
export const TELEGRAM_MESSAGE_LIMIT = 4096;

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})/;
const CLOSE_RESERVE = 4; // "\n```"

interface Cut {
  at: number;
  priority: number;
  /** The fence opener line when the cut falls inside a code block. */
  openFence: string | null;
}

/**
 * Splits Markdown into parts of at most `limit` characters, preferring paragraph and code-block
 * boundaries, then line ends, and cutting inside a code block only when a block alone is too long
 * (the block is then closed at the end of one part and re-opened at the start of the next).
 * The last part is the exact remainder, so a streamed reply can keep appending to it.
 */
export function splitMarkdown(text: string, limit: number = TELEGRAM_MESSAGE_LIMIT): string[] {
  if (limit < 64) throw new Error(`split limit ${limit} is too small to hold a re-opened code fence`);
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const cut = chooseCut(rest, limit);
    let head = rest.slice(0, cut.at).replace(/\s+$/, "");
    let tail = rest.slice(cut.at).replace(/^\n+/, "");
    if (cut.openFence !== null) {
      head = `${head}\n${fenceMarker(cut.openFence)}`;
      tail = `${cut.openFence}\n${tail}`;
    }
    if (head.trim() !== "") parts.push(head);
    rest = tail;
  }
  if (rest.trim() !== "" || parts.length === 0) parts.push(rest);
  return parts;
}

function fenceMarker(opener: string): string {
  return FENCE_LINE.exec(opener)?.[1] ?? "```";
}

function chooseCut(text: string, limit: number): Cut {
  const candidates: Cut[] = [];
  let openFence: string | null = null;
  let position = 0;
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    const end = position + line.length + 1;
    if (end - 1 > limit) break;
    const fence = FENCE_LINE.exec(line);
    let closedHere = false;
    let openedHere = false;
    if (fence !== null) {
      if (openFence === null) {
        openFence = line.trim();
        openedHere = true;
      } else if (line.trim().startsWith(fenceMarker(openFence))) {
        openFence = null;
        closedHere = true;
      }
    }
    const next = lines[index + 1];
    if (next === undefined) break;
    if (openFence === null) {
      const paragraph = line.trim() === "" || next.trim() === "" || closedHere || FENCE_LINE.test(next);
      candidates.push({ at: end, priority: paragraph ? 3 : 2, openFence: null });
    } else if (!openedHere && end + CLOSE_RESERVE <= limit) {
      // Never right after the opener: re-opening it in the next part would make no progress.
      candidates.push({ at: end, priority: 1, openFence });
    }
    position = end;
  }
  for (const priority of [3, 2, 1]) {
    const best = candidates.filter((cut) => cut.priority === priority).at(-1);
    if (best !== undefined && best.at >= limit / 2) return best;
  }
  const fallback = candidates.sort((a, b) => b.priority - a.priority || b.at - a.at)[0];
  if (fallback !== undefined) return fallback;
  return hardCut(text, limit);
}

/** One line longer than the limit: cut at the last space, never between a surrogate pair. */
function hardCut(text: string, limit: number): Cut {
  const fence = fenceAt(text, limit);
  const budget = fence === null ? limit : limit - CLOSE_RESERVE - 1;
  const window = text.slice(0, budget);
  const space = window.lastIndexOf(" ");
  let at = space >= budget / 2 ? space + 1 : budget;
  const code = text.charCodeAt(at - 1);
  if (code >= 0xd800 && code <= 0xdbff) at -= 1;
  return { at, priority: 0, openFence: fence };
}

function fenceAt(text: string, offset: number): string | null {
  let open: string | null = null;
  for (const line of text.slice(0, offset).split("\n")) {
    if (!FENCE_LINE.test(line)) continue;
    if (open === null) open = line.trim();
    else if (line.trim().startsWith(fenceMarker(open))) open = null;
  }
  return open;
}
