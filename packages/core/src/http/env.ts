import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ErrorType } from '../errors.js';

/**
 * Per-request values the middleware chain sets for the handlers. apps/repo.ts adds `app` and
 * `keyKind` (set on every route that takes an API key) by module augmentation, so the HTTP layer
 * names no capability.
 */
export interface HttpVariables {
  requestId: string;
  /** Set when the answer is an error: its `error_type` (read by the request span). */
  errorType: ErrorType;
  /**
   * Set by a check that has work left for after the route (a deferred rate-limit hit): run once
   * the route has answered; an error it throws replaces the answer.
   */
  afterRoute: () => Promise<void>;
}

export interface HttpEnv {
  Variables: HttpVariables;
  Bindings: {
    /** The client's address, when the adapter knows it (Express, Node server). */
    clientIp?: string;
  };
}

export type HttpApp = OpenAPIHono<HttpEnv>;
