import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { ChangeTracker } from "./completion/changes.js";
import type { CheckChange } from "./completion/check-changes.js";
import {
  detectVerification,
  enclosingProject,
  isPlainFolder,
  type VerificationCommand,
} from "./completion/verification.js";
import { emptyEvidence, type TaskEvidence, type TaskEvidenceStore } from "./evidence.js";
import type { LoopDependencies } from "./loop-types.js";
import type { TaskState } from "./state.js";

export interface TaskEvidenceWiring {
  /** The task's own directory (the first run's), where its baseline was taken. */
  cwd: string;
  deps: Pick<
    LoopDependencies,
    | "changes"
    | "verification"
    | "checkChanges"
    | "staleOutputs"
    | "acceptCheckChanges"
    | "plainFolder"
    | "enclosingProject"
    | "recordEvidence"
  >;
}

export interface EvidenceOptions {
  store: TaskEvidenceStore;
  taskId: string;
  cwd: string;
  home: string;
  configuredVerification?: string | null | undefined;
  /** --accept-check-changes: the user approved changed checks up front. */
  acceptCheckChanges?: boolean | undefined;
  askUser?: ((question: string, choices?: string[]) => Promise<string>) | undefined;
}

const acceptAnswer = "accept the changed checks";

/**
 * Connects one run of a task to the evidence the ledger keeps for the task (src/agent/evidence.ts):
 * the baseline and the judge recorded at the first change, every verification run since, and the
 * state's sequence counters restored, so the gate of a resumed run sees every change since then.
 */
export function wireTaskEvidence(options: EvidenceOptions, state: TaskState): TaskEvidenceWiring {
  const evidence: TaskEvidence = options.store.load(options.taskId) ?? emptyEvidence(options.cwd);
  const cwd = evidence.cwd;
  state.lastChangeSequence = evidence.lastChangeSequence;
  state.callSequence = evidence.callSequence;
  state.verifications.push(...evidence.verifications);
  state.uncheckedClaims.push(...(evidence.uncheckedClaims ?? []));
  const save = () => {
    evidence.lastChangeSequence = state.lastChangeSequence;
    evidence.callSequence = state.callSequence;
    evidence.verifications = state.verifications.map(
      ({ command, exitCode, sequence, fingerprint, outputSays }) => ({
        command,
        exitCode,
        sequence,
        ...(fingerprint !== undefined ? { fingerprint } : {}),
        ...(outputSays !== undefined ? { outputSays } : {}),
      }),
    );
    if (state.uncheckedClaims.length > 0)
      evidence.uncheckedClaims = state.uncheckedClaims.map(({ sequence, why, change }) => ({
        sequence,
        why,
        ...(change ? { change } : {}),
      }));
    options.store.save(options.taskId, evidence);
  };
  const detect = (): VerificationCommand | null => detectVerification(cwd, options.configuredVerification);
  // The tracker (git trees or a directory snapshot, and the sandboxed git under them) loads with the
  // task's first change or its final report, never in front of the first model request.
  const containment = { userHome: homedir(), mercuryHome: options.home };
  let loading: Promise<ChangeTracker> | undefined;
  const real = (): Promise<ChangeTracker> => {
    loading ??= Promise.all([
      import("./completion/changes.js"),
      import("./completion/snapshot.js"),
      import("./completion/judge-files.js"),
    ]).then(([{ createChangeTracker }, { defaultSnapshotLimits }, { judgeFiles }]) =>
      createChangeTracker(cwd, defaultSnapshotLimits, {
        initial: evidence.baseline,
        store: join(options.home, "baselines", options.taskId),
        containment,
        onBaseline(baseline) {
          evidence.baseline = baseline;
          if (baseline.kind === "snapshot") pruneBaselines(options.home);
          // The judge is fixed now, before the task's first change can alter it.
          try {
            evidence.verify = detect();
            evidence.judgeFiles = judgeFiles(cwd, evidence.verify);
          } catch (error) {
            evidence.verifyError = error instanceof Error ? error.message : String(error);
          }
          save();
        },
      }),
    );
    return loading;
  };
  // Check files git ignores are in no diff: hashed with the baseline, before the first change runs.
  const hidden = async () => {
    const baseline = evidence.baseline;
    if (baseline?.kind !== "git") return null;
    const { ignoredCheckFiles } = await import("./completion/hidden-checks.js");
    return ignoredCheckFiles(baseline.top, containment);
  };
  const tracker: ChangeTracker = {
    async begin() {
      await (await real()).begin();
      if (evidence.builtOutputs === undefined && evidence.verifyError === undefined) {
        const { namedBuildOutputs, builtOutputsDigest } = await import("./completion/stale-output.js");
        const names = await namedBuildOutputs(cwd, evidence.verify ?? null);
        evidence.builtOutputs = await builtOutputsDigest(cwd, names);
        save();
      }
      if (evidence.hiddenChecks !== undefined) return;
      const found = await hidden();
      if (found === null) return;
      evidence.hiddenChecks = found;
      save();
    },
    report: async () => (await real()).report(),
    async baselineContent(path) {
      const loaded = await real();
      return loaded.baselineContent ? loaded.baselineContent(path) : null;
    },
  };
  // Every confirmed report records what the task's files look like now, for `mercury undo`.
  const changes: ChangeTracker = {
    ...tracker,
    async report() {
      const report = await tracker.report();
      if (report.confirmed && report.after && report.root) {
        evidence.after = {
          files: report.files.map((file) => file.path),
          root: report.root,
          ...(report.after.kind === "git" ? { tree: report.after.tree } : { hashes: report.after.hashes }),
        };
        save();
      }
      return report;
    },
  };
  const verification = (): VerificationCommand | null => {
    if (evidence.verifyError !== undefined) throw new Error(evidence.verifyError);
    if (evidence.verify !== undefined) return evidence.verify;
    return detect();
  };
  const accepted = new Set(evidence.acceptedCheckChanges ?? []);
  const key = (change: CheckChange) => `${change.path}\u0000${change.change}`;
  return {
    cwd,
    deps: {
      changes,
      verification,
      plainFolder: isPlainFolder(cwd, options.configuredVerification),
      enclosingProject: options.configuredVerification ? null : enclosingProject(cwd),
      recordEvidence: save,
      async checkChanges(report) {
        const [{ findCheckChanges }, { judgeFileChanges }] = await Promise.all([
          import("./completion/check-changes.js"),
          import("./completion/judge-files.js"),
        ]);
        const listed = await findCheckChanges({
          report,
          baselineContent: (path) => changes.baselineContent?.(path) ?? Promise.resolve(null),
          verification: evidence.verify ?? null,
        });
        // Judge files the rules above already named are not named twice; every other one is here,
        // shown in the change picture or not (a created node_modules/.bin/node is no rule's file).
        const named = new Set(listed.map((change) => join(report.root ?? cwd, change.path)));
        const unseen = judgeFileChanges(cwd, evidence.judgeFiles).filter(
          (change) => !named.has(join(cwd, change.path)),
        );
        const hiddenNow = evidence.hiddenChecks === undefined ? null : await hidden();
        const ignored =
          hiddenNow === null || evidence.hiddenChecks === undefined
            ? []
            : (await import("./completion/hidden-checks.js")).hiddenCheckChanges(
                evidence.hiddenChecks,
                hiddenNow,
              );
        const found = [...listed, ...unseen, ...ignored];
        return found.filter((change) => !accepted.has(key(change)));
      },
      async staleOutputs(files) {
        const before = evidence.builtOutputs;
        const command = evidence.verify?.command;
        if (before === undefined || command === undefined || Object.keys(before).length === 0) return null;
        const { builtOutputsDigest, staleBuildReason } = await import("./completion/stale-output.js");
        const now = await builtOutputsDigest(cwd, Object.keys(before));
        return staleBuildReason(command, before, now, files);
      },
      async acceptCheckChanges(found) {
        let approved = options.acceptCheckChanges === true;
        if (!approved && options.askUser) {
          const { describeCheckChanges } = await import("./completion/check-changes.js");
          const answer = await options.askUser(
            `The task changed how its work is checked: ${describeCheckChanges(found)}. A passing check proves nothing after that. Accept these changes as part of the task?`,
            [acceptAnswer, "keep it paused"],
          );
          approved = answer.trim() === acceptAnswer;
        }
        if (!approved) return false;
        for (const change of found) accepted.add(key(change));
        evidence.acceptedCheckChanges = [...accepted];
        save();
        return true;
      },
    },
  };
}

/** Snapshot baselines kept (newest first); older copies are removed, so a busy home stays bounded. */
export const keptBaselines = 100;

/**
 * Removes all but the newest `keep` baseline copies under MERCURY_HOME/baselines. Undo for a task
 * whose copy is gone reports the missing files instead of restoring them.
 */
export function pruneBaselines(home: string, keep: number = keptBaselines): void {
  const directory = join(home, "baselines");
  if (!existsSync(directory)) return;
  // Another Mercury process (the daemon beside a `run`) may prune the same folder at the same moment:
  // a copy that vanished between the listing and its stat is already gone, which is what pruning wants.
  const entries = readdirSync(directory)
    .flatMap((name) => {
      const stats = statSync(join(directory, name), { throwIfNoEntry: false });
      return stats ? [{ name, mtime: stats.mtimeMs }] : [];
    })
    .sort((a, b) => b.mtime - a.mtime);
  for (const entry of entries.slice(keep))
    rmSync(join(directory, entry.name), { recursive: true, force: true });
}
