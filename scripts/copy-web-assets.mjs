// Part of `npm run build`: web/*.css next to the compiled web/*.js in dist/web/ (the dashboard's front end).
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

const source = new URL("../web/", import.meta.url);
const target = new URL("../dist/web/", import.meta.url);
mkdirSync(target, { recursive: true });
for (const name of readdirSync(source)) {
  if (name.endsWith(".css")) copyFileSync(join(source.pathname, name), join(target.pathname, name));
}
