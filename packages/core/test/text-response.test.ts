import { describe, expect, it } from 'vitest';
import { TextResponse } from '../src/http/text-response.js';

const init = { status: 201, headers: { 'content-type': 'application/json', 'x-a': '1' } };

describe('TextResponse', () => {
  it('is a Response with its status and headers', () => {
    const res = new TextResponse('{"a":1}', init);
    expect(res).toBeInstanceOf(Response);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-a')).toBe('1');
    expect(res.bodyUsed).toBe(false);
  });

  it('reads as text, JSON, bytes and through its body stream, as a plain Response would', async () => {
    const text = '{"name":"Zoë ✓"}';
    const plain = new Response(text, init);
    expect(await new TextResponse(text, init).text()).toBe(await plain.clone().text());
    expect(await new TextResponse(text, init).json()).toEqual(await plain.clone().json());
    expect(new Uint8Array(await new TextResponse(text, init).arrayBuffer())).toEqual(
      new Uint8Array(await plain.clone().arrayBuffer()),
    );
    expect(await new Response(new TextResponse(text, init).body).text()).toBe(text);
    // Re-wrapped the way Hono does when a middleware replaces the answer.
    const rewrapped = new Response(new TextResponse(text, init).body, new TextResponse(text, init));
    expect(await rewrapped.text()).toBe(text);
    expect(rewrapped.status).toBe(201);
  });

  it('can be read once, and cloned before that', async () => {
    const res = new TextResponse('hello', init);
    const copy = res.clone();
    expect(await res.text()).toBe('hello');
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow(TypeError);
    expect(() => res.clone()).toThrow(TypeError);
    expect(await copy.text()).toBe('hello');
    const streamed = new TextResponse('x', init);
    await new Response(streamed.body).text();
    expect(streamed.bodyUsed).toBe(true);
    await expect(streamed.text()).rejects.toThrow(TypeError);
  });
});
