import { appView, isLatchkeyError, type Latchkey } from '@latchkey/core';

/** What the CLI asks of Latchkey: the same calls whether a running server or the CLI itself runs them. */
export type AdminCall =
  | { op: 'app.create'; name: string }
  | { op: 'app.list' }
  | { op: 'app.settings.get'; app_id: string }
  | { op: 'app.settings.set'; app_id: string; patch: unknown }
  | { op: 'app.rotate_secret'; app_id: string; grace_seconds?: number };

export async function runAdminCall(latchkey: Latchkey, call: AdminCall): Promise<unknown> {
  switch (call.op) {
    case 'app.create': {
      const { app_id, secret_key, public_token } = await latchkey.apps.create({ name: call.name });
      return { app_id, secret_key, public_token };
    }
    case 'app.list':
      return (await latchkey.apps.list()).map((a) => ({
        app_id: a.id,
        name: a.name,
        created_at: a.created_at,
        updated_at: a.updated_at,
      }));
    // Settings as `GET /v1/app` shows them: a sealed secret is shown by its hint, never its blob.
    case 'app.settings.get':
      return appView(await latchkey.apps.get(call.app_id)).settings;
    case 'app.settings.set':
      return appView(await latchkey.apps.patchSettings(call.app_id, call.patch)).settings;
    case 'app.rotate_secret':
      return latchkey.apps.rotateSecretKey(call.app_id, { graceSeconds: call.grace_seconds });
    default:
      throw new Error(`unknown admin call ${(call as { op: unknown }).op}`);
  }
}

/** One line for the terminal; a Latchkey error keeps its type and field. */
export function adminErrorMessage(err: unknown): string {
  if (isLatchkeyError(err))
    return `${err.message} (${err.errorType}${err.field ? `, field ${err.field}` : ''})`;
  return err instanceof Error ? err.message : String(err);
}
