import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AuthenticateMerchant } from '@gateway/edge/domain';
import { ApiRequest } from './api-request';

/** First of the order of checks: the credentials. Nothing else is looked at before them. */
@Injectable()
export class MerchantAuthGuard implements CanActivate {
  constructor(private readonly authenticate: AuthenticateMerchant) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ApiRequest>();
    request.authenticated = await this.authenticate.execute(request.headers.authorization);
    request.logContext.merchantId = request.authenticated.merchant.id;
    return true;
  }
}
