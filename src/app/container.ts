import { loadSettings } from "../config/settings.js";
import { openDatabase } from "../storage/database.js";
import { type AppOptions, composeApp, type MercuryApp } from "./compose.js";

export type { AppOptions, MercuryApp } from "./compose.js";

/** The composition root: opens (and migrates) the database, then builds the app on it (compose.ts). */
export function createApp(options: AppOptions = {}): MercuryApp {
  const settings = options.settings ?? loadSettings(options);
  const database = openDatabase(options.databasePath ?? settings.paths.database);
  return composeApp(database, { ...options, settings });
}
