/**
 * `@latchkey/core/breached-passwords-file`: the breach check for offline deployments, over a
 * SHA-1 list on disk sorted by hash (Pwned Passwords' downloadable "ordered by hash" file, or
 * any list of `HASH` or `HASH:COUNT` lines). Node only (it reads the file with `node:fs`), so
 * it is its own entry point and the main one stays free of Node's modules.
 */
import { open } from 'node:fs/promises';
import type { BreachedPasswords } from './port.js';
import { sha1Hex } from './sha1-hex.js';

export type { BreachedPasswords } from './port.js';

export interface BreachedPasswordsFile extends BreachedPasswords {
  close(): Promise<void>;
}

export interface BreachedPasswordsFileOptions {
  /** Times a password must appear to count as breached; a line without a count is 1. Default 1. */
  minCount?: number;
}

/** Bytes read per probe: a line is 40 hex digits, a colon, a count and a line end. */
const PROBE_BYTES = 128;
const KEY = /^[0-9A-Fa-f]{40}$/;

/**
 * Opens `path` and answers by binary search over byte offsets: each lookup reads about
 * log2(lines) small pieces (about 31 for the full 900-million-line corpus), and nothing is
 * loaded into memory. The list must be sorted by hash, all in one letter case.
 */
export async function breachedPasswordsFile(
  path: string,
  options: BreachedPasswordsFileOptions = {},
): Promise<BreachedPasswordsFile> {
  const minCount = options.minCount ?? 1;
  const file = await open(path, 'r');
  const { size } = await file.stat();

  const readAt = async (position: number, length: number): Promise<string> => {
    const buffer = new Uint8Array(Math.min(length, Math.max(0, size - position)));
    const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
    return new TextDecoder('latin1').decode(buffer.subarray(0, bytesRead));
  };

  /** The line starting at `start`, without its end (`\n` or `\r\n`), and where the next begins. */
  const lineAt = async (start: number): Promise<{ line: string; next: number }> => {
    let text = await readAt(start, PROBE_BYTES);
    let end = text.indexOf('\n');
    // A longer line than one probe (a long count, trailing text): keep reading.
    while (end < 0 && start + text.length < size) {
      text += await readAt(start + text.length, PROBE_BYTES);
      end = text.indexOf('\n');
    }
    const line = (end < 0 ? text : text.slice(0, end)).replace(/\r$/, '');
    return { line, next: end < 0 ? size : start + end + 1 };
  };

  /** The first line start at or after `position` (0, or just after a `\n`); `size` if none. */
  const nextLineStart = async (position: number): Promise<number> => {
    if (position === 0) return 0;
    for (let at = position - 1; at < size; at += PROBE_BYTES) {
      const newline = (await readAt(at, PROBE_BYTES)).indexOf('\n');
      if (newline >= 0) return at + newline + 1;
    }
    return size;
  };

  const first = size > 0 ? (await lineAt(0)).line.split(':')[0]! : '';
  if (!KEY.test(first)) {
    await file.close();
    throw new Error(`${path} does not start with a SHA-1 line (40 hex digits, then :count or nothing)`);
  }

  /** The count of `target` (upper-case SHA-1 hex) in the file, 0 when it is not there. */
  const find = async (target: string): Promise<number> => {
    // Candidate lines are those starting in [lo, hi); lo is always a line start.
    let lo = 0;
    let hi = size;
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const start = await nextLineStart(mid);
      if (start >= hi) {
        hi = mid;
        continue;
      }
      const { line, next } = await lineAt(start);
      const [key = '', count] = line.split(':');
      const upper = key.toUpperCase();
      if (upper === target) return count === undefined ? 1 : Number(count);
      if (upper < target) lo = next;
      else hi = start;
    }
    return 0;
  };

  return {
    isBreached: async (password) => (await find(sha1Hex(password))) >= minCount,
    close: () => file.close(),
  };
}
