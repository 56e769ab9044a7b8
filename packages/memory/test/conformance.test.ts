import { runStorageConformance } from '@latchkey/storage-conformance';
import { memoryStorage } from '../src/index.js';

runStorageConformance({ name: 'memory', create: async () => memoryStorage() });
