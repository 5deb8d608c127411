import { MemoryRequestThrottle } from './memory-request-throttle';
import { describeThrottleContract } from './testing/request-throttle-contract';

describeThrottleContract('in-memory', (limits) => new MemoryRequestThrottle(limits));
