import type { SessionRevocation } from '@latchkey/core';
import { describe, expect, it } from 'vitest';
import { decodeRevocations, encodeRevocations, MAX_MESSAGE_BYTES } from '../src/revocation-messages.js';

const revocation = (i: number): SessionRevocation => ({
  app_id: `app_${'a'.repeat(24)}`,
  session_id: `session_${i.toString().padStart(24, '0')}`,
  revoked_at: 1_700_000_000 + i,
});

describe('revocation messages', () => {
  it('carry revocations as compact tuples, read back as they were', () => {
    const revocations = [revocation(1), revocation(2)];
    const messages = encodeRevocations(revocations);
    expect(messages).toEqual([
      `{"v":1,"r":[["${revocations[0]!.app_id}","${revocations[0]!.session_id}",1700000001],["${revocations[1]!.app_id}","${revocations[1]!.session_id}",1700000002]]}`,
    ]);
    expect(decodeRevocations(messages[0]!)).toEqual(revocations);
  });

  it('nothing to say: no message', () => {
    expect(encodeRevocations([])).toEqual([]);
  });

  it('split a long list into messages under 64 KB, none lost, in order', () => {
    const revocations = Array.from({ length: 5000 }, (_, i) => revocation(i));
    const messages = encodeRevocations(revocations);
    expect(messages.length).toBeGreaterThan(1);
    for (const m of messages) expect(Buffer.byteLength(m)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    // Filled, not one entry each.
    expect(Buffer.byteLength(messages[0]!)).toBeGreaterThan(MAX_MESSAGE_BYTES - 100);
    expect(messages.flatMap(decodeRevocations)).toEqual(revocations);
  });

  it('count bytes, not characters', () => {
    const wide = Array.from({ length: 1000 }, (_, i) => ({
      ...revocation(i),
      app_id: `app_${'é'.repeat(40)}`,
    }));
    const messages = encodeRevocations(wide);
    for (const m of messages) expect(Buffer.byteLength(m)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(messages.flatMap(decodeRevocations)).toEqual(wide);
  });

  it('send an entry longer than a message alone, and the others beside it as usual', () => {
    const huge = { ...revocation(0), session_id: 's'.repeat(MAX_MESSAGE_BYTES) };
    const between = encodeRevocations([revocation(1), huge, revocation(2)]);
    expect(between.map(decodeRevocations)).toEqual([[revocation(1)], [huge], [revocation(2)]]);
    const first = encodeRevocations([huge, revocation(1), revocation(2)]);
    expect(first.map(decodeRevocations)).toEqual([[huge], [revocation(1), revocation(2)]]);
  });

  it('read anything else as no revocations, never throwing: a message is taken whole or not at all', () => {
    const good = '["app_1","session_1",1700000000]';
    const malformed = [
      '',
      'not json',
      '{"v":1,"r":[',
      'null',
      '42',
      '"text"',
      '[]',
      '{}',
      `{"r":[${good}]}`,
      `{"v":2,"r":[${good}]}`,
      `{"v":"1","r":[${good}]}`,
      '{"v":1}',
      '{"v":1,"r":{}}',
      `{"v":1,"r":[${good},null]}`,
      `{"v":1,"r":[${good},"x"]}`,
      `{"v":1,"r":[${good},["app_1","session_2"]]}`,
      `{"v":1,"r":[${good},["app_1","session_2",1700000000,"x"]]}`,
      `{"v":1,"r":[${good},[1,"session_2",1700000000]]}`,
      `{"v":1,"r":[${good},["","session_2",1700000000]]}`,
      `{"v":1,"r":[${good},["app_1",2,1700000000]]}`,
      `{"v":1,"r":[${good},["app_1","",1700000000]]}`,
      `{"v":1,"r":[${good},["app_1","session_2","1700000000"]]}`,
      `{"v":1,"r":[${good},["app_1","session_2",null]]}`,
      `{"v":1,"r":[${good},["app_1","session_2",1e999]]}`,
    ];
    for (const text of malformed) expect({ text, read: decodeRevocations(text) }).toEqual({ text, read: [] });
    expect(decodeRevocations(`{"v":1,"r":[${good}]}`)).toEqual([
      { app_id: 'app_1', session_id: 'session_1', revoked_at: 1_700_000_000 },
    ]);
  });
});
