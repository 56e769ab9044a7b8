export { adminSocketPath, serveAdminSocket } from './admin-socket.js';
export { runCli } from './cli.js';
export type { Output } from './output.js';
