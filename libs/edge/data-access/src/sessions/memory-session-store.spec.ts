import { MemorySessionStore } from './memory-session-store';
import { describeSessionStoreContract } from './testing/session-store-contract';

const stores: MemorySessionStore[] = [];
afterAll(() => stores.forEach((s) => s.close()));

describeSessionStoreContract('in-memory', () => {
  const store = new MemorySessionStore();
  stores.push(store);
  return store;
});
