import { readFileSync } from 'node:fs';
import { ReceiverBehaviour, WebhookReceiver } from '@gateway/testing';
import { readState } from './e2e-state';

/** A local HTTPS webhook receiver with the certificate this run's dispatchers trust. */
export async function startWebhookReceiver(normally?: ReceiverBehaviour): Promise<WebhookReceiver> {
  const tls = readState().webhookReceiverTls;
  if (!tls) {
    throw new Error('This e2e run has no webhook receiver certificate (global setup).');
  }
  const receiver = new WebhookReceiver({ cert: readFileSync(tls.certFile, 'utf8'), key: readFileSync(tls.keyFile, 'utf8') }, normally);
  await receiver.start();
  return receiver;
}
