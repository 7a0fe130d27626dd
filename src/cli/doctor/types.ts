import type { loadSettings } from "../../config/settings.js";

export interface Check {
  name: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  fix?: string;
  /** A safe repair `doctor --fix` applies by itself; returns what it did. */
  repair?: () => Promise<string> | string;
}

export interface DoctorContext {
  settings: ReturnType<typeof loadSettings>;
  offline: boolean;
}

/** One area of the installation; returns one or more checks. Adding an area is one line in the list. */
export type DoctorCheck = (context: DoctorContext) => Promise<Check[]> | Check[];
