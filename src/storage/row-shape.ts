/**
 * Checks the rows Mercury reads back from its own database, by hand rather than with zod: the memory
 * commands read rows on every run, and importing zod costs them more than all their other work
 * (BENCHMARKS.md, issue 11 memory latency). A row of the wrong shape means the file was changed
 * outside Mercury or is damaged; the error names the table, the row and the column.
 */
export class RowShapeError extends Error {
  override name = "RowShapeError";
}

export class RowReader {
  private readonly row: Record<string, unknown>;

  constructor(
    private readonly table: string,
    row: unknown,
  ) {
    if (row === null || typeof row !== "object") {
      throw new RowShapeError(`a ${table} row read from the database is not a row (${typeof row})`);
    }
    this.row = row as Record<string, unknown>;
  }

  private fail(column: string, expected: string): never {
    const value = this.row[column];
    const id = this.row.id;
    const which = typeof id === "number" ? ` ${id}` : "";
    const shown = typeof value === "string" ? JSON.stringify(value.slice(0, 80)) : String(value);
    throw new RowShapeError(
      `${this.table} row${which} in the database has ${column} = ${shown}, expected ${expected}: the database was changed outside Mercury or is damaged. Run \`mercury doctor\`, then \`mercury backup list\` and \`mercury backup restore <file>\` to go back to a good copy.`,
    );
  }

  text(column: string): string {
    const value = this.row[column];
    return typeof value === "string" ? value : this.fail(column, "text");
  }

  textOrNull(column: string): string | null {
    const value = this.row[column];
    return value === null || typeof value === "string" ? value : this.fail(column, "text or null");
  }

  integer(column: string): number {
    const value = this.row[column];
    return Number.isInteger(value) ? (value as number) : this.fail(column, "a whole number");
  }

  integerOrNull(column: string): number | null {
    const value = this.row[column];
    return value === null || Number.isInteger(value)
      ? (value as number | null)
      : this.fail(column, "a whole number or null");
  }

  number(column: string): number {
    const value = this.row[column];
    return typeof value === "number" && !Number.isNaN(value) ? value : this.fail(column, "a number");
  }

  numberOrNull(column: string): number | null {
    const value = this.row[column];
    return value === null || (typeof value === "number" && !Number.isNaN(value))
      ? value
      : this.fail(column, "a number or null");
  }

  oneOf<T extends string>(column: string, allowed: readonly T[]): T {
    const value = this.row[column];
    return typeof value === "string" && (allowed as readonly string[]).includes(value)
      ? (value as T)
      : this.fail(column, `one of ${allowed.join(", ")}`);
  }

  /** A JSON array of whole numbers stored as text (message ids). */
  integerList(column: string): number[] {
    const raw = this.text(column);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return this.fail(column, "a JSON array of whole numbers");
    }
    if (!Array.isArray(value) || !value.every((item) => Number.isInteger(item))) {
      return this.fail(column, "a JSON array of whole numbers");
    }
    return value as number[];
  }
}
