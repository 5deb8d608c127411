import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MerchantRepository } from '@gateway/edge/data-access';
import type { ApiPasswordPeppers } from '@gateway/crypto';
import { API_PASSWORD_PEPPERS, IssuedCredentials, ManageMerchants } from '@gateway/edge/domain';

export const DEMO_MERCHANT_ID = 'TESTDEMO';

export interface DemoMerchant {
  merchantId: string;
  /** Credentials on the first start only (the password is shown once); afterwards undefined. */
  issued?: IssuedCredentials;
}

/**
 * The standalone profile's first start provisions a test merchant, so the gateway can be
 * called right away; later starts only name it. The main announces it once the server is
 * listening, so whoever reads the banner can call the API at once.
 */
@Injectable()
export class DemoMerchantProvisioner implements OnApplicationBootstrap {
  private provisioned: DemoMerchant | undefined;

  constructor(
    private readonly merchants: MerchantRepository,
    @Inject(API_PASSWORD_PEPPERS) private readonly peppers: ApiPasswordPeppers,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if ((await this.merchants.count()) > 0) {
      this.provisioned = { merchantId: DEMO_MERCHANT_ID };
      return;
    }
    const issued = await new ManageMerchants(this.merchants, this.peppers).create({
      id: DEMO_MERCHANT_ID,
      name: 'Demo merchant',
      mode: 'TEST',
    });
    this.provisioned = { merchantId: DEMO_MERCHANT_ID, issued };
  }

  /** What bootstrap provisioned (or found). */
  demoMerchant(): DemoMerchant {
    if (!this.provisioned) {
      throw new Error('the demo merchant is provisioned when the application bootstraps');
    }
    return this.provisioned;
  }
}
