import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { MerchantRepository } from '@gateway/edge/data-access';
import { API_PASSWORD_PEPPER, IssuedCredentials, ManageMerchants } from '@gateway/edge/domain';

export const DEMO_MERCHANT_ID = 'TESTDEMO';
export const DEMO_MERCHANT_ANNOUNCER = Symbol('DEMO_MERCHANT_ANNOUNCER');

/** Told about the demo merchant at start: its credentials on first start, its id afterwards. */
export type DemoMerchantAnnouncer = (demo: { merchantId: string; issued?: IssuedCredentials }) => void;

/**
 * The standalone profile's first start provisions a test merchant, so the gateway can be
 * called right away; later starts only name it (its password was shown once).
 */
@Injectable()
export class DemoMerchantProvisioner implements OnApplicationBootstrap {
  constructor(
    private readonly merchants: MerchantRepository,
    @Inject(API_PASSWORD_PEPPER) private readonly pepper: string,
    @Inject(DEMO_MERCHANT_ANNOUNCER) private readonly announce: DemoMerchantAnnouncer,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if ((await this.merchants.count()) > 0) {
      this.announce({ merchantId: DEMO_MERCHANT_ID });
      return;
    }
    const issued = await new ManageMerchants(this.merchants, this.pepper).create({
      id: DEMO_MERCHANT_ID,
      name: 'Demo merchant',
      mode: 'TEST',
    });
    this.announce({ merchantId: DEMO_MERCHANT_ID, issued });
  }
}
