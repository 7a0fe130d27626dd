import type { PermissionContext } from "./context.js";
import type { Command, Stmt } from "./shell-ast.js";
import { stmtsInWord } from "./shell-ast.js";
import { evaluateWord } from "./shell-words.js";
import { programName, unwrap } from "./wrappers.js";

export function flattenPipeline(command: Extract<Command, { type: "binary" }>): Stmt[] {
  const out: Stmt[] = [];
  const visit = (stmt: Stmt) => {
    const inner = stmt.command;
    if (inner?.type === "binary" && (inner.op === "|" || inner.op === "|&") && stmt.redirects.length === 0) {
      visit(inner.left);
      visit(inner.right);
    } else out.push(stmt);
  };
  visit(command.left);
  visit(command.right);
  return out;
}

/** The program that really runs in a statement (after sudo/env/... unwrapping), when it is a simple command. */
export function finalProgram(stmt: Stmt, context: PermissionContext): string | null {
  if (stmt.command?.type !== "call" || stmt.command.args.length === 0) return null;
  const words = stmt.command.args.map((word) => evaluateWord(word, context));
  const invocations = unwrap(words).invocations;
  return invocations[invocations.length - 1]?.program ?? null;
}

/** Every program name run anywhere in these statements, through wrappers and substitutions. */
export function programsIn(stmts: Stmt[], context: PermissionContext): Set<string> {
  const out = new Set<string>();
  const visitStmt = (stmt: Stmt) => {
    for (const redirect of stmt.redirects) if (redirect.word) stmtsInWord(redirect.word).forEach(visitStmt);
    const command = stmt.command;
    if (!command) return;
    if (command.type === "call") {
      for (const word of command.args) stmtsInWord(word).forEach(visitStmt);
      if (command.args.length === 0) return;
      const words = command.args.map((word) => evaluateWord(word, context));
      for (const invocation of unwrap(words).invocations) out.add(invocation.program);
      out.add(programName(words[0]));
    } else if (command.type === "binary") {
      visitStmt(command.left);
      visitStmt(command.right);
    } else if (command.type === "func") command.body.forEach(visitStmt);
    else {
      command.stmts.forEach(visitStmt);
      for (const word of command.words) stmtsInWord(word).forEach(visitStmt);
    }
  };
  stmts.forEach(visitStmt);
  return out;
}
