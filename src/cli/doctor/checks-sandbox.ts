import { describeSandbox } from "../../sandbox/describe.js";
import { detectSandbox } from "../../sandbox/detect.js";
import type { DoctorCheck } from "./types.js";

/** Whether commands run contained; without a sandbox, --yes refuses what is not provably read-only. */
export const sandboxCheck: DoctorCheck = () => {
  const sandbox = detectSandbox();
  return [
    sandbox.available
      ? { name: "sandbox", status: "ok", detail: describeSandbox(sandbox) }
      : {
          name: "sandbox",
          status: "warn",
          detail: `no OS sandbox for commands: ${sandbox.reason}; commands that are not provably read-only need approval and --yes refuses them`,
          fix: sandbox.fix,
        },
  ];
};
