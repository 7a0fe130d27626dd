/**
 * A skill's text cannot close its own frame (`</skill>`) and go on as Mercury: after the real close
 * come the lines Mercury writes (which tools may run), and `[Mercury] …` is how Mercury's own notes
 * to the model begin. Those markers in the author's text are defused wherever they appear.
 */
export function defuseSkillText(text: string): string {
  return text
    .replace(/<(\s*\/?\s*)skill\b/gi, (_match, slash: string) => `&lt;${slash}skill`)
    .replace(/[[\uff3b]([\s\u200b-\u200f\u2060\ufeff]*)mercury\b/gi, "[quoted by the skill: Mercury")
    .replace(/^(\s*)(While this skill is active|allowed-tools entries)/gim, "$1(quoted by the skill) $2");
}
