/**
 * The part of an OpenTelemetry `Tracer` (`@opentelemetry/api`) Latchkey calls, described by
 * shape: core never imports the API package, so a host without tracing loads none of it, and
 * a host with it passes `trace.getTracer('latchkey')` as it is.
 */
export interface TelemetryTracer {
  startActiveSpan<F extends (span: TelemetrySpan) => unknown>(
    name: string,
    options: TelemetrySpanOptions,
    fn: F,
  ): ReturnType<F>;
}

/** The part of an OpenTelemetry `Span` Latchkey calls. */
export interface TelemetrySpan {
  setAttribute(key: string, value: string | number | boolean): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

export interface TelemetrySpanOptions {
  kind?: number;
  attributes?: Record<string, string | number | boolean>;
}

/** `SpanKind`'s values in `@opentelemetry/api`, restated so that nothing of it is imported. */
export const SPAN_KIND = { internal: 0, server: 1 } as const;

/** `SpanStatusCode.ERROR` in `@opentelemetry/api`. */
export const SPAN_STATUS_ERROR = 2;
