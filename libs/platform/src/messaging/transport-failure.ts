/**
 * The transport failures MessageBus answers SERVER_BUSY. NoResponders and NotSent had no effect
 * (never delivered): NotSent is a request the client refused to send (the connection already
 * closed, or not made within the request's time); nothing of it left this process.
 */
export type TransportFailureName = 'NoResponders' | 'TimeoutError' | 'ClosedConnectionError' | 'RequestError' | 'NotSent';

/** A transport failure as both message clients raise it: an Error named for what happened. */
export function transportFailure(name: TransportFailureName, message: string, cause?: unknown): Error {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { name });
}

/**
 * What nats.js threw synchronously from `publish` or `subscribe`, before anything was queued for
 * the server: a ClosedConnectionError there is a refusal to send (NotSent), which MessageBus must
 * not read as the ClosedConnectionError of a request already published, whose reply the closing
 * cut off. Anything else is passed on as it is (DrainingConnectionError is never sent already;
 * an invalid subject or an oversized payload is this process's fault, not the transport's).
 */
export function refusedToSend<E>(err: E): E | Error {
  return err instanceof Error && err.name === 'ClosedConnectionError' ? transportFailure('NotSent', 'not sent: the NATS connection is closed', err) : err;
}
