import { Module } from '@nestjs/common';
import { AcquirerRegistry } from './acquirer-registry';

/**
 * The acquirer connectors for a service that moves card money. Needs the platform's Metrics
 * (PlatformModule is global in every app).
 */
@Module({
  providers: [AcquirerRegistry],
  exports: [AcquirerRegistry],
})
export class AcquirerModule {}
