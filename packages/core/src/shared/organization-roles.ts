import { z } from '@hono/zod-openapi';

// Here rather than in organizations/: the App settings schema (apps/) reads these, and a folder
// apps/ imports must not import the kernel back (scripts/folder-cycles.mjs).

/** A role's name: lower-case letters, digits, `_` and `-`, starting with a letter. */
export const roleNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,63}$/, 'a role name: a-z first, then a-z, 0-9, _ or -, at most 64')
  .openapi({ example: 'billing' });

/** A permission: `resource:action` words (`invoices:read`), as the App names them. */
export const permissionSchema = z
  .string()
  .regex(
    /^[a-z][a-z0-9_-]{0,63}(:[a-z0-9_-]{1,64}){0,3}$/,
    'a permission such as invoices:read: lower-case words joined by ":"',
  );

/** The roles every App has, and what they allow (docs/organizations.md). */
export const BUILT_IN_ROLES = {
  /** Every permission, the App's own included (`*`): the one role that can delete the organization. */
  owner: ['*'],
  admin: ['organization:read', 'organization:write', 'members:read', 'members:write', 'members:invite'],
  member: ['organization:read', 'members:read'],
} as const satisfies Record<string, readonly string[]>;

export const BUILT_IN_ROLE_NAMES = Object.keys(BUILT_IN_ROLES) as Array<keyof typeof BUILT_IN_ROLES>;

const MAX_APP_ROLES = 50;

/** `settings.organizations` of an App: the roles it adds to the built-in ones, and who may create one. */
export const organizationsAppSettingsSchema = z
  .object({
    /**
     * Whether a signed-in user may create an organization (`POST /v1/organizations` with their
     * session and the public token), becoming its owner. Off: only the secret key creates them.
     */
    allow_user_creation: z.boolean().default(false),
    /** Each role the App defines, with the permissions it grants: `{ billing: ['invoices:read'] }`. */
    roles: z
      .record(roleNameSchema, z.array(permissionSchema).max(100))
      .default({})
      .superRefine((roles, ctx) => {
        const names = Object.keys(roles);
        if (names.length > MAX_APP_ROLES)
          ctx.addIssue({ code: 'custom', message: `at most ${MAX_APP_ROLES} roles` });
        for (const name of names)
          if ((BUILT_IN_ROLE_NAMES as string[]).includes(name))
            ctx.addIssue({
              code: 'custom',
              path: [name],
              message: `'${name}' is a built-in role; its permissions cannot be redefined`,
            });
      }),
  })
  .prefault({});

export type OrganizationsAppSettings = z.infer<typeof organizationsAppSettingsSchema>;
