import { LatchkeyError } from '../errors.js';

/** The App's user with this id, or `user_not_found` (404): for requests that name a user. */
export async function requireUser<U>(
  users: { get(appId: string, userId: string): Promise<U | null> },
  appId: string,
  userId: string,
): Promise<U> {
  const user = await users.get(appId, userId);
  if (!user) throw new LatchkeyError('user_not_found');
  return user;
}
