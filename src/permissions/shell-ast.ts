import { createRequire } from "node:module";

/**
 * A typed copy of the parts of the bash syntax tree the policy needs, converted from mvdan/sh's
 * parser (the GopherJS build `mvdan-sh`, which exposes the full tree; the WASM `sh-syntax` package
 * only returns statement positions). Anything the converter does not model is kept as an "other"
 * node with the statements nested in it, so nothing inside can hide from the hardline checks.
 */

export type BinaryOp = "&&" | "||" | "|" | "|&";

export type WordPart =
  | { type: "lit"; value: string }
  | { type: "sgl"; value: string; dollar: boolean }
  | { type: "dbl"; parts: WordPart[] }
  | {
      type: "param";
      name: string;
      simple: boolean;
      nested: Stmt[];
      /** The word of `${X:-word}`, `${X:=word}`, `${X#word}`…: what the expansion may yield instead of $X. */
      operand?: Word;
    }
  | { type: "cmdsubst"; stmts: Stmt[] }
  | { type: "procsubst"; stmts: Stmt[] }
  | { type: "other"; nodeType: string; nested: Stmt[] };

export interface Word {
  parts: WordPart[];
}

export interface Redirect {
  op: string;
  fd: string | null;
  word: Word | null;
  heredoc: Word | null;
}

export type Command =
  | { type: "call"; assigns: { name: string; value: Word | null }[]; args: Word[] }
  | { type: "binary"; op: BinaryOp; left: Stmt; right: Stmt }
  | { type: "func"; name: string; body: Stmt[] }
  | {
      type: "compound";
      nodeType: string;
      stmts: Stmt[];
      words: Word[];
      /** `for NAME in WORDS`: the loop variable, which takes each of the words. */
      loopName?: string;
      /** `export X=…`, `declare X=…`, `local`, `readonly`: the variables set. */
      assigns?: { name: string; value: Word | null }[];
      /** A DeclClause's builtin: declare, local, export, readonly, typeset, nameref. */
      variant?: string;
    };

export interface Stmt {
  command: Command | null;
  redirects: Redirect[];
  background: boolean;
  negated: boolean;
  coprocess: boolean;
}

export type ParseResult =
  | {
      ok: true;
      stmts: Stmt[];
      /**
       * Every command and process substitution anywhere in the tree, found by walking the whole
       * syntax tree rather than the fields the converter models: `a=( $(rm -rf ~) )`, `${x:$(…)}`.
       */
      substitutions: Stmt[];
    }
  | { ok: false; error: string };

const binaryOps: Record<number, BinaryOp> = { 10: "&&", 11: "||", 12: "|", 13: "|&" };
const redirectOps: Record<number, string> = {
  54: ">",
  55: ">>",
  56: "<",
  57: "<>",
  58: "<&",
  59: ">&",
  60: ">|",
  61: "<<",
  62: "<<-",
  63: "<<<",
  64: "&>",
  65: "&>>",
};

type MvdanSyntax = typeof import("mvdan-sh")["default"]["syntax"];

// The parser is 1.5 MB of JavaScript (~0.4 s to load): loaded on the first command judged, not at start-up.
const load = createRequire(import.meta.url);
let loaded: MvdanSyntax | undefined;
const syntax = {
  get NewParser(): MvdanSyntax["NewParser"] {
    return parser().NewParser;
  },
  get Walk(): MvdanSyntax["Walk"] {
    return parser().Walk;
  },
  get NodeType(): MvdanSyntax["NodeType"] {
    return parser().NodeType;
  },
};

function parser(): MvdanSyntax {
  if (!loaded) {
    const module = load("mvdan-sh") as { syntax: MvdanSyntax };
    loaded = module.syntax;
  }
  return loaded;
}

export function parseShell(source: string): ParseResult {
  let file: unknown;
  try {
    file = syntax.NewParser().Parse(source, "");
  } catch (error) {
    return { ok: false, error: parseErrorText(error) };
  }
  const substitutions: Stmt[] = [];
  const visit = (node: unknown): boolean => {
    const type = present(node) ? syntax.NodeType(node) : "";
    if (type === "CmdSubst" || type === "ProcSubst")
      substitutions.push(...list(get(node, "Stmts")).map(convertStmt));
    // The parser's own walk does not enter `${x:offset:length}`: `${x:$(rm -rf ~)}`.
    const slice = type === "ParamExp" ? get(node, "Slice") : undefined;
    for (const part of present(slice) ? [get(slice, "Offset"), get(slice, "Length")] : []) {
      if (present(part)) syntax.Walk(part, visit);
    }
    return true;
  };
  syntax.Walk(file, visit);
  return { ok: true, stmts: list(get(file, "Stmts")).map(convertStmt), substitutions };
}

function parseErrorText(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const method = Reflect.get(error, "Error");
    if (typeof method === "function") {
      const text: unknown = method.call(error);
      if (typeof text === "string") return text;
    }
    const message = Reflect.get(error, "message");
    if (typeof message === "string") return message;
  }
  return String(error);
}

function get(node: unknown, key: string): unknown {
  if (typeof node !== "object" || node === null) return undefined;
  return Reflect.get(node, key);
}

function list(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "object" && value !== null) {
    const length = Reflect.get(value, "length");
    if (typeof length === "number") {
      const out: unknown[] = [];
      for (let i = 0; i < length; i++) out.push(Reflect.get(value, i));
      return out;
    }
  }
  return [];
}

function present(value: unknown): boolean {
  return value !== null && value !== undefined && value !== false && value !== 0;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function convertStmt(node: unknown): Stmt {
  const cmd = get(node, "Cmd");
  return {
    command: present(cmd) ? convertCommand(cmd) : null,
    redirects: list(get(node, "Redirs")).map(convertRedirect),
    background: get(node, "Background") === true,
    negated: get(node, "Negated") === true,
    coprocess: get(node, "Coprocess") === true,
  };
}

function convertRedirect(node: unknown): Redirect {
  const op = Number(get(node, "Op"));
  const fd = get(node, "N");
  const word = get(node, "Word");
  const heredoc = get(node, "Hdoc");
  return {
    op: redirectOps[op] ?? `?${op}`,
    fd: present(fd) ? text(get(fd, "Value")) : null,
    word: present(word) ? convertWord(word) : null,
    heredoc: present(heredoc) ? convertWord(heredoc) : null,
  };
}

function convertCommand(node: unknown): Command {
  const type = syntax.NodeType(node);
  if (type === "CallExpr") {
    return {
      type: "call",
      assigns: list(get(node, "Assigns")).map(convertAssign),
      args: list(get(node, "Args")).map(convertWord),
    };
  }
  if (type === "BinaryCmd") {
    const op = binaryOps[Number(get(node, "Op"))];
    if (op)
      return { type: "binary", op, left: convertStmt(get(node, "X")), right: convertStmt(get(node, "Y")) };
  }
  if (type === "FuncDecl") {
    return {
      type: "func",
      name: text(get(get(node, "Name"), "Value")),
      body: nestedStmts(get(node, "Body")),
    };
  }
  const { stmts, words } = nested(node);
  const loopName = type === "ForClause" ? text(get(get(get(node, "Loop"), "Name"), "Value")) : "";
  const assigns = type === "DeclClause" ? list(get(node, "Args")).map(convertAssign) : [];
  // declare, local, export, readonly, typeset, nameref: `-n` makes a nameref for all but export.
  const variant = type === "DeclClause" ? text(get(get(node, "Variant"), "Value")) : "";
  return {
    type: "compound",
    nodeType: type,
    stmts,
    words,
    ...(loopName ? { loopName } : {}),
    ...(assigns.length > 0 ? { assigns } : {}),
    ...(variant ? { variant } : {}),
  };
}

function convertAssign(assign: unknown): { name: string; value: Word | null } {
  const value = get(assign, "Value");
  return { name: text(get(get(assign, "Name"), "Value")), value: present(value) ? convertWord(value) : null };
}

function convertWord(node: unknown): Word {
  return { parts: list(get(node, "Parts")).map(convertPart) };
}

function convertPart(node: unknown): WordPart {
  const type = syntax.NodeType(node);
  switch (type) {
    case "Lit":
      return { type: "lit", value: text(get(node, "Value")) };
    case "SglQuoted":
      return { type: "sgl", value: text(get(node, "Value")), dollar: get(node, "Dollar") === true };
    case "DblQuoted":
      return { type: "dbl", parts: list(get(node, "Parts")).map(convertPart) };
    case "ParamExp": {
      const simple = !["Excl", "Length", "Width", "Index", "Slice", "Repl", "Exp", "Names"].some((key) =>
        present(get(node, key)),
      );
      const operand = get(get(node, "Exp"), "Word");
      return {
        type: "param",
        name: text(get(get(node, "Param"), "Value")),
        simple,
        nested: nestedStmts(node),
        ...(present(operand) ? { operand: convertWord(operand) } : {}),
      };
    }
    case "CmdSubst":
      return { type: "cmdsubst", stmts: list(get(node, "Stmts")).map(convertStmt) };
    case "ProcSubst":
      return { type: "procsubst", stmts: list(get(node, "Stmts")).map(convertStmt) };
    default:
      return { type: "other", nodeType: type, nested: nestedStmts(node) };
  }
}

/** The statements and words directly below a node we do not model field by field. */
function nested(node: unknown): { stmts: Stmt[]; words: Word[] } {
  const stmts: Stmt[] = [];
  const words: Word[] = [];
  syntax.Walk(node, (child) => {
    if (child === node || !present(child)) return true;
    const type = syntax.NodeType(child);
    if (type === "Stmt") {
      stmts.push(convertStmt(child));
      return false;
    }
    if (type === "Word") {
      words.push(convertWord(child));
      return false;
    }
    return true;
  });
  return { stmts, words };
}

function nestedStmts(node: unknown): Stmt[] {
  const { stmts, words } = nested(node);
  for (const word of words) stmts.push(...stmtsInWord(word));
  return stmts;
}

/** Every statement nested anywhere in a word (command and process substitutions, `${x:-$(...)}`). */
export function stmtsInWord(word: Word): Stmt[] {
  const out: Stmt[] = [];
  const visit = (part: WordPart) => {
    if (part.type === "cmdsubst" || part.type === "procsubst") out.push(...part.stmts);
    else if (part.type === "dbl") part.parts.forEach(visit);
    else if (part.type === "param" || part.type === "other") out.push(...part.nested);
  };
  word.parts.forEach(visit);
  return out;
}
