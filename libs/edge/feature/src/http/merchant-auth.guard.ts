import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AuthenticateMerchant, AuthenticateOrderOperation, checkOrderId, PresentedCredentials } from '@gateway/edge/domain';
import { ApiRequest } from './api-request';
import { ClientCertificateReader } from './client-certificate.reader';

/** First of the order of checks: the credentials. Nothing else is looked at before them. */
@Injectable()
export class MerchantAuthGuard implements CanActivate {
  constructor(
    private readonly authenticate: AuthenticateMerchant,
    private readonly certificates: ClientCertificateReader,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ApiRequest>();
    request.authenticated = await this.authenticate.execute(presentedCredentials(request, this.certificates));
    request.logContext.merchantId = request.authenticated.merchant.id;
    return true;
  }
}

/**
 * MerchantAuthGuard for an order operation: the same credentials and throttle, with the order
 * lock's first try sent together with the throttle's admission (AuthenticateOrderOperation).
 * The lease it got is the controller's to release.
 */
@Injectable()
export class OrderOperationAuthGuard implements CanActivate {
  constructor(
    private readonly authenticate: AuthenticateOrderOperation,
    private readonly certificates: ClientCertificateReader,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ApiRequest>();
    const { authenticated, lease } = await this.authenticate.execute(presentedCredentials(request, this.certificates), orderIdOf(request));
    request.authenticated = authenticated;
    request.orderLease = lease;
    request.logContext.merchantId = authenticated.merchant.id;
    return true;
  }
}

function presentedCredentials(request: ApiRequest, certificates: ClientCertificateReader): PresentedCredentials {
  const params = request.params as Record<string, string | undefined>;
  return {
    authorization: request.headers.authorization,
    certificate: certificates.read(request),
    clientAddress: request.ip,
    pathMerchantId: params.merchantId ?? '',
  };
}

/** The path's order id when the controller will accept it (else it answers 400 and no lock is tried). */
function orderIdOf(request: ApiRequest): string | null {
  try {
    return checkOrderId((request.params as Record<string, string | undefined>).orderId ?? '');
  } catch {
    return null;
  }
}
