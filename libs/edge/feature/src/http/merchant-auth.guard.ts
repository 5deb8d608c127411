import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AuthenticateMerchant } from '@gateway/edge/domain';
import { ApiRequest } from './api-request';
import { ClientCertificateReader } from './client-certificate.reader';

/**
 * First of the order of checks: the credentials (AuthenticateMerchant: password or certificate,
 * a disabled merchant, the throttle). Nothing of the path or body is looked at before them.
 * Leaves the authenticated merchant on the request, for ApiPath to match against the path, and
 * its id on every log line of the request from here on.
 */
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
