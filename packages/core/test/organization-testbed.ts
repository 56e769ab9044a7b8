import { afterAll, beforeAll, expect } from 'vitest';
import { createLatchkey, type EventRecord, type Latchkey, type Storage } from '../src/index.js';
import {
  capturingSender,
  expectErrorShape,
  manualClock,
  TEST_SECRET,
  type TestApp,
  testApp,
} from './helpers.js';
import type { Backend } from './storage-backends.js';

/** The one redirect URL the testbed's Apps allow for invitation links. */
export const INVITE = 'https://app.example.com/invite';

type AppSettings = Parameters<Latchkey['apps']['updateSettings']>[1];

export interface OrganizationTestbed {
  storage: Storage;
  latchkey: Latchkey;
  /** The App under test, and another whose organizations and invitations must stay apart. */
  t: TestApp;
  other: TestApp;
  sender: ReturnType<typeof capturingSender>;
  clock: ReturnType<typeof manualClock>;
  /** Every event written, in order. */
  events: EventRecord[];
}

/**
 * What the organization suites (organizations and members, invitations, joining) share: `backend`
 * opened before the suite's tests and closed after, one Latchkey with a manual clock and a
 * capturing sender, and two Apps that allow `INVITE` for invitation links, plus `settings`. Read
 * its fields inside tests and hooks: the storage, Latchkey and Apps are set once the suite starts.
 */
export function organizationTestbed(backend: Backend, settings: AppSettings = {}): OrganizationTestbed {
  const bed = {
    sender: capturingSender(),
    clock: manualClock(),
    events: [] as EventRecord[],
  } as OrganizationTestbed;
  let dispose: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await backend.open();
    dispose = opened.dispose;
    bed.storage = opened.storage;
    bed.latchkey = createLatchkey({
      storage: bed.storage,
      secret: TEST_SECRET,
      clock: bed.clock,
      sender: bed.sender,
    });
    bed.latchkey.events.on('*', (e) => {
      bed.events.push(e);
    });
    bed.t = await testApp(bed.latchkey);
    bed.other = await testApp(bed.latchkey);
    for (const app of [bed.t, bed.other])
      await bed.latchkey.apps.updateSettings(app.app_id, {
        ...settings,
        redirect_urls: { invite: [INVITE], ...settings.redirect_urls },
      });
  });
  afterAll(async () => {
    await dispose?.();
  });
  return bed;
}

/** A documented error body of `status` and `type`; returns the body. */
export function expectError(res: Awaited<ReturnType<TestApp['call']>>, status: number, type: string) {
  expect(res.status).toBe(status);
  const body = expectErrorShape(res);
  expect(body.error_type).toBe(type);
  return body;
}
