import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { OperationReply, SUBJECTS } from '@gateway/contracts';
import { ConfirmBrowserPayment, InitiateBrowserPayment } from '@gateway/browser-payment/domain';
import { parseOrderOperationMessage } from '@gateway/platform';

/** INITIATE_BROWSER_PAYMENT and CONFIRM_BROWSER_PAYMENT from the edge: transport only. */
@Controller()
export class BrowserPaymentsNatsController {
  constructor(
    private readonly initiatePayment: InitiateBrowserPayment,
    private readonly confirmPayment: ConfirmBrowserPayment,
  ) {}

  @MessagePattern(SUBJECTS.browserPayment.initiate)
  async initiate(@Payload() data: unknown): Promise<OperationReply> {
    // The same request class the edge validated with: a service trusts no caller's body.
    const { message, request } = parseOrderOperationMessage(data, 'INITIATE_BROWSER_PAYMENT');
    const body = await this.initiatePayment.execute({
      envelope: message.envelope,
      orderId: message.orderId,
      transactionId: message.transactionId,
      request,
      body: message.body,
      ...(message.asSent ? { asSent: message.asSent } : {}),
      ...(message.deadline !== undefined ? { deadline: message.deadline } : {}),
    });
    return { body };
  }

  @MessagePattern(SUBJECTS.browserPayment.confirm)
  async confirm(@Payload() data: unknown): Promise<OperationReply> {
    const { message, request } = parseOrderOperationMessage(data, 'CONFIRM_BROWSER_PAYMENT');
    const body = await this.confirmPayment.execute({
      envelope: message.envelope,
      orderId: message.orderId,
      transactionId: message.transactionId,
      request,
      body: message.body,
      ...(message.asSent ? { asSent: message.asSent } : {}),
      ...(message.deadline !== undefined ? { deadline: message.deadline } : {}),
    });
    return { body };
  }
}
