import 'reflect-metadata';
import { VERIFICATION_SCHEMA } from '@gateway/verification/data-access';
import { VerificationConfig, VerificationModule } from '@gateway/verification/feature';
import { runServiceMain } from '@gateway/platform';

void runServiceMain({
  name: 'verification',
  configClass: VerificationConfig,
  schema: VERIFICATION_SCHEMA,
  featureModule: (config) => VerificationModule.forRoot(config),
});
