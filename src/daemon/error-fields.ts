/**
 * Log fields for an error. The app logger redacts by serialising objects to JSON, which turns a
 * nested Error into {}; plain strings keep the message and the stack.
 */
export function errorFields(error: unknown): { error: string; stack?: string } {
  if (error instanceof Error)
    return { error: `${error.name}: ${error.message}`, ...(error.stack ? { stack: error.stack } : {}) };
  return { error: String(error) };
}
