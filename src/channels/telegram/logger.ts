/** The slice of pino the channel uses; a pino Logger satisfies it. */
export interface ChannelLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** Without a daemon logger, channel events go to stderr as JSON lines: never dropped. */
export const stderrLogger: ChannelLogger = {
  info: (details, message) => write("info", details, message),
  warn: (details, message) => write("warn", details, message),
  error: (details, message) => write("error", details, message),
};

function write(level: string, details: object, message: string): void {
  process.stderr.write(
    `${JSON.stringify({ level, time: new Date().toISOString(), msg: message, ...details })}\n`,
  );
}
