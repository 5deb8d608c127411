import { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CustomTransportStrategy } from '@nestjs/microservices';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerOptions as HttpsServerOptions } from 'node:https';
import { constants } from 'node:os';
import type { Duplex } from 'node:stream';
import { GatewayError } from '@gateway/contracts';
import { ConfigError } from '../config';
import { answerClientError, answerFrameworkError, sendGatewayError } from '../errors';
import { HealthController, ReadinessChecks } from '../health';
import { AppLogger, NestPinoLogger } from '../logging';
import { dispatchAppDirectly, GatewayNatsServer } from '../messaging';
import { Metrics } from '../metrics';
import { installValidationMetadataCache } from '../validation/validation-metadata-cache';
import { StartupError } from './startup-error';

export interface BootstrapOptions {
  module: Type | DynamicModule;
  logger: AppLogger;
  host: string;
  port: number;
  shutdownGraceMs: number;
  /** The message server of an app that answers subjects (every service; not the edge). */
  messageServer?: CustomTransportStrategy;
  /** Body size limit; the edge sets the API's, services only serve health and metrics. */
  bodyLimit?: number;
  /** Trust X-Forwarded-* from these proxies (the edge behind an ingress). */
  trustProxy?: string[] | boolean;
  /** Fastify setup before routes are registered (content parsers, hooks). */
  configureHttp?: (fastify: FastifyInstance) => void;
  /** Serve HTTPS with these options (the edge, when it terminates TLS itself). */
  https?: HttpsServerOptions;
  /**
   * Longest time a client may take to send its whole request, body included; then 408 and the
   * connection is closed. Unset: no limit (Fastify's default), for apps that serve only probes.
   */
  requestTimeoutMs?: number;
  /** Largest request line plus headers (Node's default is 16 KiB). */
  maxHeaderBytes?: number;
  /** Longest path parameter the router matches; longer ones fall through to the 404 route. */
  maxParamLength?: number;
  /**
   * Headers for the answers given before any hook runs (Node's parser refusals, a URL that is
   * not valid percent-encoding), which an app's onSend hook never sees: the edge's security headers.
   */
  refusalHeaders?: readonly (readonly [string, string])[];
}

export interface RunningApp {
  app: NestFastifyApplication;
  url: string;
  shutdown(reason: string): Promise<void>;
}

/**
 * Starts an app: HTTP on Fastify, the message server if any, and a graceful shutdown on
 * SIGTERM/SIGINT (readiness turns false, the message server stops taking requests and lets
 * in-flight ones answer, the HTTP server stops accepting and finishes what it has, then
 * connections close), bounded by the grace period.
 */
export async function bootstrapApp(options: BootstrapOptions): Promise<RunningApp> {
  installValidationMetadataCache();
  const serverOptions = {
    ...(options.maxHeaderBytes ? { maxHeaderSize: options.maxHeaderBytes } : {}),
    // Node enforces a request timeout only with a headers timeout no longer than it (as its own
    // defaults are), and looks for requests past their time this often (its default, 30 s, would
    // let one overstay a short timeout by that much).
    ...(options.requestTimeoutMs
      ? { headersTimeout: Math.min(60_000, options.requestTimeoutMs), connectionsCheckingInterval: Math.min(1_000, options.requestTimeoutMs) }
      : {}),
  };
  const adapter = new FastifyAdapter({
    logger: false,
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    trustProxy: options.trustProxy ?? false,
    ...(options.requestTimeoutMs ? { requestTimeout: options.requestTimeoutMs } : {}),
    // Path ids are validated by us, with the spec's error; do not let the router reject them first.
    routerOptions: { maxParamLength: options.maxParamLength ?? 1000, ignoreDuplicateSlashes: false },
    // Its own 503 (`{"error":"Service Unavailable"}`, no Retry-After) is not the API's: the
    // onRequest hook below answers in its place.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // What Node's HTTP parser refuses (oversized headers, malformed request lines) is answered
    // in the API's error shape too.
    clientErrorHandler: (err: Error & { code?: string }, socket: Duplex) => answerClientError(err, socket, options.refusalHeaders),
    frameworkErrors: (error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply) =>
      answerFrameworkError(error, request, reply, options.refusalHeaders),
    ...(options.https ? { https: { ...options.https, ...serverOptions } } : { http: serverOptions }),
  });
  const fastify = adapter.getInstance() as unknown as FastifyInstance;
  // Once shutting down, every answer closes its connection: a keep-alive connection whose
  // request was in flight when the server began closing would otherwise hold the close open
  // until its keep-alive timeout (Fastify's 72 s, beyond the grace period), since only the
  // connections idle at that moment are closed.
  let draining = false;
  fastify.addHook('onSend', async (_request, reply, payload) => {
    if (draining) {
      reply.header('connection', 'close');
    }
    return payload;
  });
  // Once the HTTP server closes, a request read on a keep-alive connection that was busy at that
  // moment (only idle ones are closed) is refused before any other hook: the API's 503
  // SERVER_BUSY with Retry-After, whose plain wording says nothing was done, and the connection
  // closed so the caller retries on another replica.
  let httpClosing = false;
  fastify.addHook('preClose', (done) => {
    httpClosing = true;
    done();
  });
  fastify.addHook('onRequest', (_request, reply, done) => {
    if (!httpClosing) {
      done();
      return;
    }
    reply.header('connection', 'close');
    sendGatewayError(reply, GatewayError.serverBusy());
  });
  options.configureHttp?.(fastify);
  const app = await NestFactory.create<NestFastifyApplication>(options.module, adapter, {
    logger: new NestPinoLogger(options.logger),
    abortOnError: false,
    // Bodies are parsed by the apps themselves (see configureEdgeHttp), never by Nest's defaults.
    bodyParser: false,
  });
  if (options.messageServer) {
    app.connectMicroservice({ strategy: options.messageServer }, { inheritAppConfig: true });
    if (options.messageServer instanceof GatewayNatsServer) {
      options.messageServer.observeWith(app.get(Metrics), options.logger);
    }
    // Initialise first (migrations, the vault's keys, every onModuleInit): Nest's
    // startAllMicroservices subscribes without running the init hooks, which only app.listen
    // would run, so a replica joining its queue group mid-rollout would take requests before it
    // can serve them.
    await app.init();
    const server = options.messageServer;
    if (server instanceof GatewayNatsServer) {
      dispatchAppDirectly(app, server);
    }
    await app.startAllMicroservices();
    if (server instanceof GatewayNatsServer) {
      // nats.js sends a subscription with its next write: one round trip puts them on the server,
      // so a request sent once the app has started (another replica's, a test's) finds a responder.
      await server.connection()?.flush();
      app.get(ReadinessChecks).add('nats-subscriptions', async () => {
        const connection = server.connection();
        if (!connection || connection.isClosed()) {
          throw new Error('not connected');
        }
        await connection.rtt();
      });
    }
  }
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (err) {
    // What the init started (the workers polling the database, the message server) stops here,
    // before the main stops the database under it.
    await app.close().catch(() => undefined);
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new StartupError(`Port ${options.port} on ${options.host} is in use by another process (another gateway?): give this one its own HTTP_PORT.`);
    }
    throw err;
  }
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `${options.https ? 'https' : 'http'}://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${port}`;

  let closing: Promise<void> | null = null;
  const shutdown = (reason: string): Promise<void> => {
    closing ??= (async () => {
      options.logger.info({ reason }, 'shutting down');
      app.get(HealthController).markShuttingDown();
      draining = true;
      const timer = setTimeout(() => {
        options.logger.error({ graceMs: options.shutdownGraceMs }, 'shutdown grace period exceeded; exiting');
        process.exit(1);
      }, options.shutdownGraceMs);
      timer.unref();
      await app.close();
      clearTimeout(timer);
      options.logger.info('shut down');
      options.logger.flush();
    })();
    return closing;
  };
  return { app, url, shutdown };
}

/** What a signal shuts down before the process exits. */
export interface Stoppable {
  shutdown(reason: string): Promise<void>;
}

export interface ProcessSignals {
  /** From now on a signal shuts `stoppable` down (gracefully), then exits; may be called again as more starts. */
  shutDownWith(stoppable: Stoppable): void;
  /**
   * A command's work is done (what is left is closing its connections): a signal from now on
   * exits with the status the command set (`process.exitCode`, 0 unless set), as the command will.
   */
  finished(): void;
}

/**
 * What a signal ends. A server's end: it is how a server stops, so it exits 0 once it has shut
 * down, and 0 while it still starts (nothing serves yet, so nothing is drained). A command's
 * (`main.js migrate`, an operator's one-shot) interruption: 128 + the signal's number, the
 * shell's convention (143 for SIGTERM, 130 for SIGINT), unless the command said its work was
 * done; an interrupted migration must not read as a finished one, which the migration Job would
 * count complete and the rollout go on against a half-migrated schema.
 */
export type SignalledProcess = 'server' | 'command';

/**
 * For mains, first of all: SIGTERM and SIGINT stop the process at any time. Until the main says
 * what to shut down, a signal exits at once, and a process that is still starting (waiting for
 * its database, say) stops when told to, even as a container's PID 1, which the kernel sends no
 * default action. The exit status is the one `kind` says.
 */
export function exitOnSignals(kind: SignalledProcess): ProcessSignals {
  let target: Stoppable | undefined;
  let finished = kind === 'server';
  // A finished command exits with the status it set (rotate-keys' 2: tokens remain under a retired
  // key), which a signal while it closes its connections must not turn into 0.
  const status = (signal: 'SIGTERM' | 'SIGINT'): number =>
    !finished ? 128 + constants.signals[signal] : kind === 'command' ? Number(process.exitCode ?? 0) : 0;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    // `on`, not `once`: a second Ctrl-C must not kill the process halfway through its shutdown.
    process.on(signal, () => {
      if (!target) {
        process.exit(status(signal));
      }
      target.shutdown(signal).then(
        () => process.exit(status(signal)),
        () => process.exit(1),
      );
    });
  }
  return {
    shutDownWith(stoppable) {
      target = stoppable;
    },
    finished() {
      finished = true;
    },
  };
}

/**
 * For mains: a bad configuration names the variable and exits 78 (EX_CONFIG); anything else
 * is logged (a StartupError by its message alone) and exits 1 once the log line is flushed.
 */
export function failStartup(logger: AppLogger | undefined, err: unknown): void {
  if (err instanceof ConfigError) {
    const line = JSON.stringify({ level: 'fatal', msg: err.message, problems: err.problems });
    process.stderr.write(`${line}\n`);
    process.exit(78);
  }
  const expected = err instanceof StartupError;
  if (logger) {
    if (expected) logger.fatal(err.message);
    else logger.fatal({ err }, 'startup failed');
    logger.flush();
  } else {
    const line = expected ? { level: 'fatal', msg: err.message } : { level: 'fatal', msg: 'startup failed', error: String(err) };
    process.stderr.write(`${JSON.stringify(line)}\n`);
  }
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 200).unref();
}

export type { INestApplication };
