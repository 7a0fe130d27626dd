import type { SqliteDatabase } from "../../storage/database.js";

/**
 * Document frequencies per scope set (`search_term_df`), cached for one search at most (cleared
 * with the index's other caches). Keyed by scope set, then term, so a lookup builds no string: the
 * second stage asks for a term's idf once per candidate, and a key built on each call was a good
 * share of a search's garbage (what its slowest queries wait for).
 */
export class DocumentFrequencies {
  private readonly statements;
  private readonly byScopes = new Map<string, Map<string, number>>();
  private lastScopeIds: readonly number[] | undefined;
  private lastFrequencies: Map<string, number> | undefined;

  constructor(database: SqliteDatabase) {
    this.statements = {
      one: database.prepare("SELECT df FROM search_term_df WHERE scope_id = ? AND term = ?").pluck(),
      many: database.prepare(
        `SELECT term, SUM(df) AS df FROM search_term_df
         WHERE scope_id IN (SELECT value FROM json_each(?)) AND term IN (SELECT value FROM json_each(?))
         GROUP BY term`,
      ),
    };
  }

  /** Documents of these scopes that contain the term (in any field). */
  get(term: string, scopeIds: readonly number[]): number {
    const frequencies = this.of(scopeIds);
    const cached = frequencies.get(term);
    if (cached !== undefined) return cached;
    let df = 0;
    for (const scopeId of scopeIds) df += Number(this.statements.one.get(scopeId, term) ?? 0);
    frequencies.set(term, df);
    return df;
  }

  /**
   * Loads the frequencies of many terms in one statement (feedback reads those of every word of the
   * best documents: one statement each would cost more than the search).
   */
  prefetch(terms: Iterable<string>, scopeIds: readonly number[]): void {
    const frequencies = this.of(scopeIds);
    const missing = [...new Set(terms)].filter((term) => !frequencies.has(term));
    if (missing.length === 0) return;
    for (const term of missing) frequencies.set(term, 0);
    const rows = this.statements.many.all(JSON.stringify(scopeIds), JSON.stringify(missing)) as {
      term: string;
      df: number;
    }[];
    for (const row of rows) frequencies.set(row.term, Number(row.df));
  }

  clear(): void {
    this.byScopes.clear();
    this.lastScopeIds = undefined;
    this.lastFrequencies = undefined;
  }

  /** The cached frequencies of one scope set; the same array as the last call costs no key. */
  private of(scopeIds: readonly number[]): Map<string, number> {
    if (scopeIds === this.lastScopeIds && this.lastFrequencies !== undefined) return this.lastFrequencies;
    const key = scopeIds.join(",");
    let frequencies = this.byScopes.get(key);
    if (frequencies === undefined) {
      frequencies = new Map();
      this.byScopes.set(key, frequencies);
    }
    this.lastScopeIds = scopeIds;
    this.lastFrequencies = frequencies;
    return frequencies;
  }
}
