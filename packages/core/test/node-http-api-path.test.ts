import { describe, expect, it } from 'vitest';
import { isApiPath } from '../src/node-http/api-path.js';

describe('isApiPath: the paths Latchkey’s app routes under /v1', () => {
  it.each([
    ['/v1', true],
    ['/v1/', true],
    ['/v1/health', true],
    ['/v1/health?x=1', true],
    ['/v10', false],
    ['/v1x/a', false],
    ['/', false],
    ['/V1/health', false],
    ['/a?next=/v1/health', false],
  ])('a plain target %s → %s', (target, expected) => {
    expect(isApiPath(target)).toBe(expected);
  });

  // As the Web Request's URL normalises them and Hono decodes them before routing.
  it.each([
    ['/x/../v1/health', true],
    ['/./v1', true],
    ['\\v1\\health', true],
    ['//elsewhere/v1/health', true],
    ['/%76%31/health', true],
    ['/%76%31/%E2', true],
    ['/v1/%zz', true],
    ['/%2e%2e/v1/x', true],
    ['/v1%2Fhealth', false],
    ['/%2576%31/x', false],
    ['/%zz/v1', false],
    ['/%v1/x', false],
    ['http://a b/v1/x', false],
  ])('a target to normalise %s → %s', (target, expected) => {
    expect(isApiPath(target)).toBe(expected);
  });
});
