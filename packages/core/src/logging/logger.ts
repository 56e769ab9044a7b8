/**
 * Where Latchkey writes what an operator should see: a failed request, a failing webhook
 * worker, a misconfigured proxy. The call shape of pino (and bunyan): an object of fields, then
 * the message, so `createLatchkey({ logger: pino() })` works as it is. Fields never hold a
 * request body, so no passcode, token or key reaches a logger.
 */
export interface Logger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * Without a configured logger: the console, the message first. The one place in the packages
 * that writes to it (biome's noConsole holds the rest to that).
 */
export const consoleLogger: Logger = {
  // biome-ignore lint/suspicious/noConsole: the default logger is the console
  info: (fields, message) => console.info(message, fields),
  // biome-ignore lint/suspicious/noConsole: the default logger is the console
  warn: (fields, message) => console.warn(message, fields),
  // biome-ignore lint/suspicious/noConsole: the default logger is the console
  error: (fields, message) => console.error(message, fields),
};
