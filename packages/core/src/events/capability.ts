import { defineCapability } from '../capability.js';
import { eventsErrors } from './errors.js';
import { registerEventRoutes } from './routes.js';
import { eventService } from './service.js';

/** The App's events: `events.on(type, handler)` listens in-process, after commit. */
export const eventsCapability = defineCapability({
  name: 'events',
  needs: [],
  storage: ['events'],
  errors: eventsErrors,
  service: ({ kernel, hooks }) => eventService(kernel, hooks),
  routes: registerEventRoutes,
});
