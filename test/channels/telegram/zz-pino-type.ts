import pino from "pino";
import type { ChannelLogger } from "../../../src/channels/telegram/logger.js";
export const check: ChannelLogger = pino({ level: "silent" });
