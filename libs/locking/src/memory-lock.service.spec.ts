import { MemoryLockService } from './memory-lock.service';
import { describeLockContract } from './testing/lock-contract';

describeLockContract('in-memory', () => new MemoryLockService());
