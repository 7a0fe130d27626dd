// mvdan-sh (mvdan/sh compiled to JS with GopherJS) ships no types; nodes are read as unknown and
// checked in shell-ast.ts.
declare module "mvdan-sh" {
  interface MvdanParser {
    Parse(source: string, name: string): unknown;
  }
  interface MvdanSyntax {
    NewParser(...options: unknown[]): MvdanParser;
    Walk(node: unknown, visit: (node: unknown) => boolean): void;
    NodeType(node: unknown): string;
    LangBash: unknown;
    Variant(lang: unknown): unknown;
  }
  const sh: { syntax: MvdanSyntax };
  export default sh;
}
