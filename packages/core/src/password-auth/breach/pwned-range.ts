import { readTextCapped } from '../../crypto/read-capped.js';
import type { BreachedPasswords } from './port.js';
import { sha1Hex } from './sha1-hex.js';

export interface PwnedPasswordsRangeOptions {
  /** The API's root; another for a mirror or a test server. Default https://api.pwnedpasswords.com */
  baseUrl?: string;
  /** Milliseconds before a range request is abandoned. Default 2000. */
  timeoutMs?: number;
  /** Times a password must appear to count as breached. Default 1. */
  minCount?: number;
  /**
   * What an unreachable or failing API means. `'allow'` (the default): the password is not known
   * to be breached, so sign-up never depends on a third party's uptime; `onError` still hears of it.
   * `'throw'`: the error reaches the caller.
   */
  onUnavailable?: 'allow' | 'throw';
  onError?: (error: unknown) => void;
  /** For tests and custom agents. Default: the runtime's `fetch`. */
  fetch?: typeof fetch;
}

/** A range answer is about 800–1,000 lines of 40 bytes; anything far larger is not one. */
const MAX_RANGE_BYTES = 1024 * 1024;

/** `SUFFIX:COUNT` lines: 35 hex digits, a colon, a decimal count. */
const LINE = /^([0-9A-Fa-f]{35}):(\d+)$/;

/**
 * The count the range body gives `suffix`, 0 when absent. Padding lines (count 0, which
 * `Add-Padding` mixes in so every answer has a similar size) count as absent.
 */
export function countInRange(body: string, suffix: string): number {
  const wanted = suffix.toUpperCase();
  for (const raw of body.split('\n')) {
    const match = LINE.exec(raw.trim());
    if (match && match[1]!.toUpperCase() === wanted) return Number(match[2]);
  }
  return 0;
}

/**
 * The Pwned Passwords range search (haveibeenpwned.com/API/v3#SearchingPwnedPasswordsByRange):
 * only the first 5 hex digits of the password's SHA-1 leave the server; the answer lists every
 * suffix under that prefix, and the match is made here. `Add-Padding: true` asks for decoy
 * lines so the answer's size does not hint at the prefix either.
 */
export function pwnedPasswordsRange(options: PwnedPasswordsRangeOptions = {}): BreachedPasswords {
  const base = (options.baseUrl ?? 'https://api.pwnedpasswords.com').replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 2000;
  const minCount = options.minCount ?? 1;
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));

  const lookup = async (password: string): Promise<boolean> => {
    const hash = sha1Hex(password);
    const response = await doFetch(`${base}/range/${hash.slice(0, 5)}`, {
      headers: { 'Add-Padding': 'true', Accept: 'text/plain' },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`Pwned Passwords answered ${response.status}`);
    }
    const body = await readTextCapped(
      response.body,
      MAX_RANGE_BYTES,
      () => new Error('Pwned Passwords answered with more than 1 MiB'),
    );
    return countInRange(body, hash.slice(5)) >= minCount;
  };

  return {
    isBreached: async (password) => {
      try {
        return await lookup(password);
      } catch (error) {
        options.onError?.(error);
        if (options.onUnavailable === 'throw') throw error;
        return false;
      }
    },
  };
}
