/**
 * The error types only events/ raises, composed into the one catalogue (errors.ts) by
 * `npm run regenerate`. A table importing nothing, so the catalogue can hold it without a cycle.
 */
export const eventsErrors = {
  event_not_found: { status: 404, message: 'No event with this id.' },
} as const satisfies Record<string, { status: number; message: string }>;
