import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type Clock, LatchkeyError, type OutboundMessage, type Sender, systemClock } from '@latchkey/core';
import { invalidOption } from './channel.js';
import { serialized } from './serialize.js';

export interface OutboxSenderOptions {
  /** The JSON Lines file; it and its folder are created on the first message. */
  path: string;
  /** Stamps `sent_at`; the system clock unless a test moves time. */
  clock?: Clock;
}

/** One line of the outbox: the message as sent, plus when. */
export interface OutboxEntry extends OutboundMessage {
  /** ISO 8601 time of the send. */
  sent_at: string;
}

/** Lines waiting for their file's turn: sends made while an append runs share the next one. */
interface Batch {
  lines: string[];
  written: Promise<void>;
}
const waiting = new Map<string, Batch>();
/** Files whose folder this process has made: a folder check per batch was a thread-pool hop on every send. */
const folderMade = new Set<string>();

async function makeFolder(path: string) {
  // The outbox holds live codes and links: readable by its owner only.
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  folderMade.add(path);
}

/**
 * Appends `line` to the file, after every earlier append to it (FIFO, across senders). Lines that
 * arrive while an append runs go in the next one together: one folder check and one append per
 * batch instead of per message, which under load was a tenth of the example server's CPU.
 */
function appendLine(path: string, line: string): Promise<void> {
  const open = waiting.get(path);
  if (open) {
    open.lines.push(line);
    return open.written;
  }
  const batch = { lines: [line] } as Batch;
  waiting.set(path, batch);
  batch.written = serialized(path, async () => {
    // From here on, new lines start the next batch.
    if (waiting.get(path) === batch) waiting.delete(path);
    // One append of whole lines, and one append at a time per file: lines never interleave.
    const append = () => appendFile(path, batch.lines.join(''), { encoding: 'utf8', mode: 0o600 });
    if (!folderMade.has(path)) await makeFolder(path);
    try {
      await append();
    } catch (error) {
      // The folder went away since (a test cleaning up, a developer's `rm`): made again, once.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await makeFolder(path);
      await append();
    }
  });
  return batch.written;
}

/**
 * A Sender for development and tests: appends each message as one JSON line to a file instead
 * of delivering it, so a developer (or a test) reads the code or link from there.
 */
export function outboxSender(options: OutboxSenderOptions): Sender {
  if (typeof options?.path !== 'string' || options.path === '')
    invalidOption('outboxSender', 'path is required');
  const path = resolve(options.path);
  const clock = options.clock ?? systemClock;
  return {
    async send(message) {
      const entry: OutboxEntry = {
        // Named fields only, in a fixed order, so nothing else a caller attached is written.
        channel: message.channel,
        to: message.to,
        kind: message.kind,
        app_id: message.app_id,
        subject: message.subject,
        text: message.text,
        html: message.html,
        code: message.code,
        url: message.url,
        sent_at: new Date(clock.now()).toISOString(),
      };
      return appendLine(path, `${JSON.stringify(entry)}\n`);
    },
  };
}

/** Every message in an outbox file, oldest first; none if the file does not exist yet. */
export async function readOutbox(path: string): Promise<OutboxEntry[]> {
  let content: string;
  try {
    content = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return content
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, i) => {
      try {
        return JSON.parse(line) as OutboxEntry;
      } catch (cause) {
        throw new LatchkeyError('internal_error', `${path}: line ${i + 1} is not JSON.`, { cause });
      }
    });
}
