import { Api } from "grammy";
import type { SqliteDatabase } from "../../storage/database.js";
import { DeliveryStore } from "./deliveries.js";
import { type ChannelLogger, stderrLogger } from "./logger.js";
import { ChatQueues } from "./queue.js";
import { ReplyStreams } from "./replies.js";
import { TELEGRAM_MESSAGE_LIMIT } from "./split.js";
import { defaultRetryOptions, MessageSender, retryTransformer } from "./transport.js";

/**
 * Sends the replies a crash left pending, each once, without starting the channel. The channel's
 * start() does the same; this is for a daemon that wants to flush before anything else runs.
 */
export async function deliverPendingReplies(options: {
  token: string;
  apiRoot?: string;
  database: SqliteDatabase;
  logger?: ChannelLogger;
}): Promise<{ attempted: number; sent: number; failed: number }> {
  const logger = options.logger ?? stderrLogger;
  const api = new Api(options.token, options.apiRoot === undefined ? {} : { apiRoot: options.apiRoot });
  api.config.use(retryTransformer({ ...defaultRetryOptions, logger }));
  const deliveries = new DeliveryStore(options.database);
  const before = new Set(deliveries.pending().map((record) => record.id));
  const streams = new ReplyStreams({
    sender: new MessageSender(api, logger),
    deliveries,
    queues: new ChatQueues(logger),
    logger,
    editIntervalMs: 0,
    messageLimit: TELEGRAM_MESSAGE_LIMIT,
  });
  await streams.deliverPending();
  const after = deliveries.all().filter((record) => before.has(record.id));
  return {
    attempted: before.size,
    sent: after.filter((record) => record.status === "sent").length,
    failed: after.filter((record) => record.status === "failed").length,
  };
}
