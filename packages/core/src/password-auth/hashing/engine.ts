import { portablePrimitives } from './portable.js';
import type { HashPrimitives } from './primitives.js';

/** The fastest primitives this runtime offers. */
export function selectPrimitives(_threads: number): HashPrimitives {
  return portablePrimitives;
}
