import { withSession } from '@latchkey/next';
import { getLatchkey } from '@/lib/latchkey.js';

// A host route for one organization's members who may read its invoices: the session must be
// scoped to an organization (app/organizations) and its roles grant `invoices:read` (an owner's
// `*` does; the demo App's `billing` role too). Otherwise 403 `permission_denied`. jwt mode: the
// JWT's claims answer, no storage read.
export const GET = withSession(
  getLatchkey,
  (_request, auth) =>
    Response.json({ organization_id: auth.organization_id, roles: auth.roles, invoices: [] }),
  { cookies: true, organization: true, permission: 'invoices:read' },
);
