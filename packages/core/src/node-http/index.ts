/**
 * `@latchkey/core/node`: what the Node adapters (`@latchkey/express`, `@latchkey/fastify`) share to
 * hand a `node:http` request to the core and write its answer back. Kept out of the main entry,
 * which runs on any Web-standard runtime.
 */
export { isApiPath, PLAIN_PATH } from './api-path.js';
export { answerError } from './error-answer.js';
export { sendResponse } from './send-response.js';
export { settleUnreadBody } from './unread-body.js';
export { type Unservable, unservableRequest } from './unservable.js';
export { webRequest } from './web-request.js';
