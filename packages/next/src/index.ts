export { clientIpFromHeaders } from './client-ip.js';
export type {
  LatchkeyFetcher,
  LatchkeyHandlersOptions,
  LatchkeyRouteHandlers,
  LatchkeySource,
  RouteHandler,
} from './handlers.js';
export { latchkeyHandlers } from './handlers.js';
