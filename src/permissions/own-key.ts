/**
 * A table entry for a name taken from the command (a program, an option). Only the table's own
 * keys count: a program called `constructor`, `toString` or `__proto__` must not find
 * Object.prototype's members and be judged (or crash the engine) as if it were listed.
 */
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
