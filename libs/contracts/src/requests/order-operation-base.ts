import { GroupField, StringField } from '@gateway/api-fields';
import { ResponseControls, SessionReference } from './shared-groups';

/**
 * The shared request fields every order operation has (besides `order.notificationUrl` and
 * `customer.email`, which live in each operation's own order and customer groups).
 */
export abstract class OrderOperationRequestBase {
  /** Transient: returned as sent, never stored. */
  @StringField(1, 100)
  correlationId?: string;

  /** Solution id issued by the provider, if any. */
  @StringField(1, 40)
  partnerSolutionId?: string;

  @GroupField(() => ResponseControls)
  responseControls?: ResponseControls;

  @GroupField(() => SessionReference)
  session?: SessionReference;
}
