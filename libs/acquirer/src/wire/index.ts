export * from './acquirer-wire.codec';
export { AcquirerWireError } from './wire-reader';
export type { MoneyWire } from './wire-reader';
