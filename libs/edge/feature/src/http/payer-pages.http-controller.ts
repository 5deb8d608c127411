import { Controller, Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { GatewayError, newSupportCode, PAYER_DECISIONS, PayerDecision, PayerPage } from '@gateway/contracts';
import { DispatchPayerJourney, PayerOutcome } from '@gateway/edge/domain';
import { APP_LOGGER, AppLogger } from '@gateway/platform';
import type { FastifyReply } from 'fastify';
import { ApiRequest } from './api-request';
import { payerFailurePage, payerMerchantDisabledPage, payerNotFoundPage, payerUnavailablePage, sendPayerPage, withPayerHeaders } from './payer-error-pages';

/** The pages the edge answers itself, when browser-payment gave none. */
const EDGE_PAGES: Record<Exclude<PayerOutcome['kind'], 'page' | 'redirect'>, () => PayerPage> = {
  unavailable: payerUnavailablePage,
  'merchant-disabled': payerMerchantDisabledPage,
  'not-found': payerNotFoundPage,
};

/**
 * The payer's browser-payment pages (ARCHITECTURE 1, 5): unauthenticated for merchants, bound
 * to the payment's redirect token, answered by browser-payment and sent here as HTML or a 303.
 * Every answer keeps the token out of other sites' hands (no Referer leaves these pages, none
 * is cached) and cannot be framed.
 */
@Controller('bpui/:provider')
export class PayerPagesHttpController {
  constructor(
    private readonly journey: DispatchPayerJourney,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  /** The merchant's redirectUrl: the payer leaves for the provider. */
  @Get('out/:token')
  async leave(
    @Req() request: ApiRequest,
    @Res() reply: FastifyReply,
    @Param('provider') provider: string,
    @Param('token') token: string,
  ): Promise<void> {
    request.apiOperation = 'PAYER_REDIRECT';
    await this.answer(request, reply, () => this.journey.step('redirect', provider, token, request.requestId));
  }

  /** A simulator page's approve or cancel button. */
  @Post('out/:token/:decision')
  async decide(
    @Req() request: ApiRequest,
    @Res() reply: FastifyReply,
    @Param('provider') provider: string,
    @Param('token') token: string,
    @Param('decision') decision: string,
  ): Promise<void> {
    request.apiOperation = 'PAYER_DECISION';
    await this.answer(request, reply, async () =>
      isDecision(decision) ? this.journey.decide(provider, token, decision, request.requestId) : { kind: 'not-found' },
    );
  }

  /** Where the provider sends the payer back; then on to the merchant's returnUrl. */
  @Get('in/:token')
  async back(
    @Req() request: ApiRequest,
    @Res() reply: FastifyReply,
    @Param('provider') provider: string,
    @Param('token') token: string,
  ): Promise<void> {
    request.apiOperation = 'PAYER_RETURN';
    await this.answer(request, reply, () => this.journey.step('return', provider, token, request.requestId));
  }

  private async answer(request: ApiRequest, reply: FastifyReply, outcome: () => Promise<PayerOutcome>): Promise<void> {
    let result: PayerOutcome;
    try {
      result = await outcome();
    } catch (err) {
      result = this.failure(err);
    }
    request.apiResult = result.kind;
    if (result.kind === 'redirect') {
      void withPayerHeaders(reply).status(303).header('Location', result.location).send();
      return;
    }
    sendPayerPage(reply, result.kind === 'page' ? result : EDGE_PAGES[result.kind]());
  }

  /** A payer gets a page, never the API's JSON; unexpected faults are logged under the code shown. */
  private failure(err: unknown): PayerOutcome {
    if (err instanceof GatewayError && err.errorCause === 'SERVER_BUSY') {
      return { kind: 'unavailable' };
    }
    if (err instanceof GatewayError && err.supportCode) {
      return payerFailurePage(err.supportCode);
    }
    const supportCode = newSupportCode();
    this.logger.error({ supportCode, err }, 'payer page failed');
    return payerFailurePage(supportCode);
  }
}

function isDecision(value: string): value is PayerDecision {
  return (PAYER_DECISIONS as readonly string[]).includes(value);
}
