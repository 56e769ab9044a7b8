import { base64urlnopad } from '@scure/base';

/**
 * jose, loaded on the first JWT signed or verified or key made: every use of it is async
 * already, and its ~45 modules are a good part of a cold import that may never touch a JWT.
 */
let jose: Promise<typeof import('jose')> | undefined;

export const loadJose = (): Promise<typeof import('jose')> => (jose ??= import('jose'));

/**
 * The `kid` of a compact JWS's protected header, as `String(decodeProtectedHeader(jwt).kid)`
 * gives it, without loading jose: for a JWT already verified, whose header is known to parse.
 */
export function protectedHeaderKid(jwt: string): string {
  const header = JSON.parse(new TextDecoder().decode(base64urlnopad.decode(jwt.slice(0, jwt.indexOf('.')))));
  return String(header.kid);
}
