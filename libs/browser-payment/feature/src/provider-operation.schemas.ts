import { Type } from 'class-transformer';
import { IsString, Length, Matches, ValidateNested } from 'class-validator';
import { LEDGER_AMOUNT, RequestEnvelope } from '@gateway/contracts';

/**
 * The ledger's messages for an operation at a provider (provider-refund.messages.ts,
 * provider-capture.messages.ts), checked like every message a service receives: the ids each
 * carries, and for a refund or a capture the amount (ProviderAmountMessageSchema).
 */
export class ProviderTargetMessageSchema {
  @ValidateNested()
  @Type(() => RequestEnvelope)
  envelope: RequestEnvelope;

  @IsString()
  @Length(1, 40)
  orderId: string;

  @IsString()
  @Length(1, 40)
  transactionId: string;

  @IsString()
  @Length(1, 40)
  targetTransactionId: string;
}

/** A refund's or capture's message: the ids and the amount, in the order's currency. */
export class ProviderAmountMessageSchema extends ProviderTargetMessageSchema {
  @Matches(LEDGER_AMOUNT)
  amount: string;

  @Matches(/^[A-Z]{3}$/)
  currency: string;
}
