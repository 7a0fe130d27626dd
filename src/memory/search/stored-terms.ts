/**
 * A document's weighted terms as stored in `search_docs.terms`. Rows written before 2026-12-01 hold
 * a JSON object; new rows hold a compact string: ENTRY, then `term` TF `weight` ENTRY for each term.
 * The second stage reads the weights of a query's few words from 200 candidates per search: parsing
 * each candidate's whole JSON object into a Map cost about 1.4 ms of a 3 ms search at 100,000
 * memories, while finding `ENTRY term TF` in the string needs no parse. Both formats are read, told
 * apart by their first character ("{" for JSON), so no migration is needed.
 */
const ENTRY = "\u0002";
const TF = "\u0003";

/** What exact BM25 needs of a document: the weight of one term, undefined when absent. */
export interface TermLookup {
  get(term: string): number | undefined;
}

export function encodeTerms(weights: ReadonlyMap<string, number>): string {
  let encoded = ENTRY;
  for (const [term, weight] of weights) {
    // Analyzed terms are letters, digits and marks (field terms start with \u0001): a separator
    // inside one would be a bug upstream, and JSON still stores it faithfully.
    if (term.includes(ENTRY) || term.includes(TF) || !Number.isFinite(weight))
      return JSON.stringify(Object.fromEntries(weights));
    encoded += `${term}${TF}${weight}${ENTRY}`;
  }
  return encoded;
}

/**
 * `ENTRY term TF` of recently looked-up terms. The second stage looks each query word up in each of
 * 200 candidates: building the key on every lookup was about a sixth of a search's allocations
 * (garbage collection is what its slowest queries wait for). Bounded: cleared when full.
 */
const searchKeys = new Map<string, string>();
const SEARCH_KEYS = 4_096;

function searchKey(term: string): string {
  let key = searchKeys.get(term);
  if (key === undefined) {
    if (searchKeys.size >= SEARCH_KEYS) searchKeys.clear();
    key = `${ENTRY}${term}${TF}`;
    searchKeys.set(term, key);
  }
  return key;
}

/** Stored terms of one document, read lazily: get() searches the string, all() parses it once. */
export class StoredTermWeights implements TermLookup {
  private parsed: Map<string, number> | undefined;

  constructor(private readonly encoded: string) {
    if (encoded.startsWith("{")) this.parsed = parseJsonTerms(encoded);
    else if (!encoded.startsWith(ENTRY)) throw new Error("search index: malformed terms column");
  }

  get(term: string): number | undefined {
    if (this.parsed !== undefined) return this.parsed.get(term);
    const key = searchKey(term);
    const at = this.encoded.indexOf(key);
    if (at < 0) return undefined;
    const start = at + key.length;
    const weight = Number(this.encoded.slice(start, this.encoded.indexOf(ENTRY, start)));
    if (Number.isNaN(weight)) throw new Error(`search index: malformed weight for term "${term}"`);
    return weight;
  }

  /**
   * The rest of the first term starting with `prefix` (a field term such as the session key), or
   * undefined. The compact form is searched, not parsed: a long context gives a document thousands
   * of terms, and parsing them all for one key on every query cost milliseconds.
   */
  fieldValue(prefix: string): string | undefined {
    if (this.parsed !== undefined) {
      for (const term of this.parsed.keys()) if (term.startsWith(prefix)) return term.slice(prefix.length);
      return undefined;
    }
    const key = `${ENTRY}${prefix}`;
    const at = this.encoded.indexOf(key);
    if (at < 0) return undefined;
    const start = at + key.length;
    const end = this.encoded.indexOf(TF, start);
    if (end < 0) throw new Error("search index: malformed terms column");
    return this.encoded.slice(start, end);
  }

  all(): Map<string, number> {
    if (this.parsed === undefined) this.parsed = parseCompactTerms(this.encoded);
    return this.parsed;
  }
}

/** Every term of a stored terms column, whichever format it was written in. */
export function parseTerms(encoded: string): Map<string, number> {
  return new StoredTermWeights(encoded).all();
}

function parseCompactTerms(encoded: string): Map<string, number> {
  const terms = new Map<string, number>();
  for (const entry of encoded.split(ENTRY)) {
    if (entry === "") continue;
    const split = entry.lastIndexOf(TF);
    const weight = Number(entry.slice(split + 1));
    if (split < 0 || Number.isNaN(weight)) throw new Error("search index: malformed terms column");
    terms.set(entry.slice(0, split), weight);
  }
  return terms;
}

function parseJsonTerms(json: string): Map<string, number> {
  const parsed: unknown = JSON.parse(json);
  if (typeof parsed !== "object" || parsed === null) throw new Error("search index: malformed terms column");
  const terms = new Map<string, number>();
  for (const [term, tf] of Object.entries(parsed)) {
    if (typeof tf !== "number") throw new Error(`search index: malformed frequency for term "${term}"`);
    terms.set(term, tf);
  }
  return terms;
}
