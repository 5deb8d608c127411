import { All, Controller, Req, Res } from '@nestjs/common';
import { GatewayError } from '@gateway/contracts';
import { sendGatewayError } from '@gateway/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { API_ROUTES } from './http-conventions';

/** Anything no other route serves: 405 on a known path, 404 otherwise, in the API's error shape. */
@Controller()
export class FallbackHttpController {
  @All('*')
  unknown(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    const path = request.url.split('?')[0];
    const route = API_ROUTES.find((r) => r.pattern.test(path));
    if (route) {
      void reply.header('Allow', route.methods.join(', '));
      sendGatewayError(
        reply,
        new GatewayError('METHOD_NOT_ALLOWED', { explanation: `Method ${request.method} is not supported on this resource.` }),
      );
      return;
    }
    sendGatewayError(reply, new GatewayError('UNKNOWN_PATH', { explanation: 'No such resource.' }));
  }
}
