/**
 * How analyzed terms travel through FTS5. The project's analyzer (src/memory/text) decides the terms;
 * FTS5 only stores them and ranks the first-stage candidates. The table's tokenizer is `ascii`, which
 * splits on ASCII punctuation and whitespace and keeps every non-ASCII character inside a token, so a
 * term made of lowercase ASCII letters, digits and non-ASCII characters (CJK words and bigrams,
 * emoji, accented words) is stored as it is. Any other term is spelled ESCAPE_PREFIX + the hex of its
 * UTF-8 bytes: one ASCII-alphanumeric token, never split by the tokenizer.
 */
const PLAIN_TERM = /^[a-z0-9\u0080-\u{10FFFF}]+$/u;

/**
 * The escape prefix. An analyzer term is stemmed English or a non-ASCII word; "zzq" + hex digits is
 * not a word the analyzer emits (the stemmer never produces "zzq"), so the two spellings never meet.
 */
const ESCAPE_PREFIX = "zzq";

export function ftsToken(term: string): string {
  if (PLAIN_TERM.test(term) && !term.startsWith(ESCAPE_PREFIX)) return term;
  return `${ESCAPE_PREFIX}${Buffer.from(term, "utf8").toString("hex")}`;
}

/** The FTS5 column text of a list of analyzed terms (order and repetitions kept). */
export function ftsText(terms: readonly string[]): string {
  return terms.map(ftsToken).join(" ");
}

/** The token naming one scope (a search_scopes row) in the `filter` column. */
export function scopeToken(scopeId: number): string {
  return `s${scopeId}`;
}

function quoted(token: string): string {
  return `"${token.replaceAll('"', '""')}"`;
}

/**
 * An FTS5 MATCH expression: any of the terms (`all`: every one of them) in the ranked columns, AND
 * one of the scopes (no scope filter when `scopeIds` is empty: the caller searches every document).
 * Every token is a quoted string, so nothing in a user's query is read as FTS5 syntax.
 */
export function matchExpression(
  terms: readonly string[],
  scopeIds: readonly number[],
  all = false,
): string | undefined {
  const unique = [...new Set(terms.map(ftsToken))];
  if (unique.length === 0) return undefined;
  const anyTerm = `{body extra} : (${unique.map(quoted).join(all ? " AND " : " OR ")})`;
  if (scopeIds.length === 0) return anyTerm;
  const anyScope = scopeIds.map((id) => quoted(scopeToken(id))).join(" OR ");
  return `(${anyTerm}) AND ({filter} : (${anyScope}))`;
}
