/** The transport failures MessageBus answers SERVER_BUSY (NoResponders: never delivered). */
export type TransportFailureName = 'NoResponders' | 'TimeoutError' | 'ClosedConnectionError' | 'RequestError';

/** A transport failure as both message clients raise it: an Error named for what happened. */
export function transportFailure(name: TransportFailureName, message: string): Error {
  return Object.assign(new Error(message), { name });
}
