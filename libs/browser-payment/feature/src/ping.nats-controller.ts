import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { PingReply, SUBJECTS } from '@gateway/contracts';

/** Answers the edge's readiness probe: this service has at least one instance taking requests. */
@Controller()
export class PingNatsController {
  @MessagePattern(SUBJECTS.browserPayment.ping)
  ping(): PingReply {
    return { service: 'browser-payment', ok: true };
  }
}
