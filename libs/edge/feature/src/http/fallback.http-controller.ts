import { All, Controller, Req, Res } from '@nestjs/common';
import { listOf } from '@gateway/api-fields';
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
    const route = routeOf(path);
    if (route) {
      const allowed = route.methods;
      void reply.header('Allow', allowed.join(', '));
      // The Allow header says it too, but a developer reads the body first (a POST where the
      // spec's operations are PUT is the usual case).
      sendGatewayError(
        reply,
        new GatewayError('METHOD_NOT_ALLOWED', { explanation: `Method ${request.method} is not supported on this resource. Use ${listOf(allowed, 'or')}.` }),
      );
      return;
    }
    // A base URL ending in '/' joined to a path, or a path copied with one: name the slash.
    const explanation = path.length > 1 && path.endsWith('/') && routeOf(path.replace(/\/+$/, ''))
      ? "No such resource. Remove the '/' at the end of the path."
      : 'No such resource.';
    sendGatewayError(reply, new GatewayError('UNKNOWN_PATH', { explanation }));
  }
}

function routeOf(path: string): (typeof API_ROUTES)[number] | undefined {
  return API_ROUTES.find((r) => r.pattern.test(path));
}
