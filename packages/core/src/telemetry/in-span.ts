import { errorTypeOf } from './error-type.js';
import {
  SPAN_STATUS_ERROR,
  type TelemetrySpan,
  type TelemetrySpanOptions,
  type TelemetryTracer,
} from './tracer.js';

/**
 * Runs `work` in an active span (so the spans it starts are its children), ending the span when
 * what it returns settles. A failure sets `error.type` and the error status, never the message.
 */
export function inSpan<T>(
  tracer: TelemetryTracer,
  name: string,
  options: TelemetrySpanOptions,
  work: () => T,
): T {
  return tracer.startActiveSpan(name, options, (span) => {
    let result: T;
    try {
      result = work();
    } catch (err) {
      failed(span, err);
      span.end();
      throw err;
    }
    if (!isThenable(result)) {
      span.end();
      return result;
    }
    return result.then(
      (value) => {
        span.end();
        return value;
      },
      (err: unknown) => {
        failed(span, err);
        span.end();
        throw err;
      },
    ) as T;
  });
}

export function failed(span: TelemetrySpan, err: unknown): void {
  const type = errorTypeOf(err);
  span.setAttribute('error.type', type);
  span.setStatus({ code: SPAN_STATUS_ERROR, message: type });
}

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
