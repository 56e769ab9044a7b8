export { makeApp, makeContact, makeUser, uid } from './fixtures.js';
export type { ConformanceTarget } from './suite.js';
export { runStorageConformance } from './suite.js';
