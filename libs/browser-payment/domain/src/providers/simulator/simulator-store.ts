import type { SimulatedProviderRepository } from '@gateway/browser-payment/data-access';

export const SIMULATOR_STORE = Symbol('SIMULATOR_STORE');

/** The simulators' books (SimulatedProviderRepository; in memory in unit tests). */
export type SimulatorStore = Pick<SimulatedProviderRepository, 'create' | 'find' | 'move' | 'execute' | 'void' | 'refund' | 'capture' | 'voidAuthorization'>;
