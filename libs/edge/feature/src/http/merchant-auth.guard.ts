import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AuthenticateMerchant } from '@gateway/edge/domain';
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
    const params = request.params as Record<string, string | undefined>;
    request.authenticated = await this.authenticate.execute({
      authorization: request.headers.authorization,
      certificate: this.certificates.read(request),
      clientAddress: request.ip,
      pathMerchantId: params.merchantId ?? '',
    });
    request.logContext.merchantId = request.authenticated.merchant.id;
    return true;
  }
}
