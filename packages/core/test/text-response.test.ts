import { describe, expect, it } from 'vitest';
import { textResponse } from '../src/http/text-response.js';

const init = { status: 201, headers: { 'content-type': 'application/json', 'x-a': '1' } };

describe('TextResponse', () => {
  it('is a Response with its status and headers', () => {
    const res = textResponse('{"a":1}', init);
    expect(res).toBeInstanceOf(Response);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-a')).toBe('1');
    expect(res.bodyUsed).toBe(false);
  });

  it('reads as text, JSON, bytes and through its body stream, as a plain Response would', async () => {
    const text = '{"name":"Zoë ✓"}';
    const plain = new Response(text, init);
    expect(await textResponse(text, init).text()).toBe(await plain.clone().text());
    expect(await textResponse(text, init).json()).toEqual(await plain.clone().json());
    expect(new Uint8Array(await textResponse(text, init).arrayBuffer())).toEqual(
      new Uint8Array(await plain.clone().arrayBuffer()),
    );
    expect(await new Response(textResponse(text, init).body).text()).toBe(text);
    // Re-wrapped the way Hono does when a middleware replaces the answer.
    const rewrapped = new Response(textResponse(text, init).body, textResponse(text, init));
    expect(await rewrapped.text()).toBe(text);
    expect(rewrapped.status).toBe(201);
  });

  it('can be read once, and cloned before that', async () => {
    const res = textResponse('hello', init);
    const copy = res.clone();
    expect(await res.text()).toBe('hello');
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow(TypeError);
    expect(() => res.clone()).toThrow(TypeError);
    expect(await copy.text()).toBe('hello');
    const streamed = textResponse('x', init);
    await new Response(streamed.body).text();
    expect(streamed.bodyUsed).toBe(true);
    await expect(streamed.text()).rejects.toThrow(TypeError);
  });

  it('gives its text synchronously to an adapter, once, as text() would', async () => {
    const take = Symbol.for('latchkey.takeText');
    const res = textResponse('{"a":1}', init) as Response & { [take]: () => string };
    expect(res[take]()).toBe('{"a":1}');
    expect(res.bodyUsed).toBe(true);
    expect(() => res[take]()).toThrow(TypeError);
    await expect(res.text()).rejects.toThrow(TypeError);
  });
});
