#!/usr/bin/env node
// The benchmark's reference figures, each its own process like the gateway's apps:
//   bare <port>                                  node:http answering a fixed JSON body (the machine's HTTP ceiling)
//   chain-edge <port> <natsUrl> <subject>        HTTP in, one NATS request-reply, the reply out
//   chain-service <natsUrl> <subject> <dbUrl>    answers the subject after one committed Postgres INSERT
// Together the chain is the architecture's floor: what any edge → service → database request costs.
import { createServer } from 'node:http';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';

const [mode, ...args] = process.argv.slice(2);
const FIXED = JSON.stringify({ result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } });

function listen(port, handler) {
  const server = createServer(handler);
  server.keepAliveTimeout = 60_000;
  server.listen(Number(port), '127.0.0.1', () => process.send?.('ready'));
  return server;
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

async function main() {
  if (mode === 'bare') {
    listen(args[0], (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(FIXED);
    });
  } else if (mode === 'chain-edge') {
    const [port, natsUrl, subject] = args;
    const nats = await connect({ servers: natsUrl, name: 'bench-chain-edge' });
    listen(port, async (request, response) => {
      try {
        const reply = await nats.request(subject, await readBody(request), { timeout: 5_000 });
        response.writeHead(201, { 'content-type': 'application/json' }).end(reply.data);
      } catch {
        response.writeHead(503, { 'content-type': 'application/json' }).end('{"result":"ERROR"}');
      }
    });
  } else if (mode === 'chain-service') {
    const [natsUrl, subject, databaseUrl] = args;
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
    await pool.query('CREATE TABLE IF NOT EXISTS reference_chain (id bigserial PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())');
    const nats = await connect({ servers: natsUrl, name: 'bench-chain-service' });
    nats.subscribe(subject, {
      queue: 'bench-chain-service',
      callback: async (_err, message) => {
        try {
          const { rows } = await pool.query('INSERT INTO reference_chain (body) VALUES ($1) RETURNING id', [message.string() || '{}']);
          message.respond(JSON.stringify({ result: 'SUCCESS', id: rows[0].id }));
        } catch {
          message.respond('{"result":"ERROR"}');
        }
      },
    });
    await nats.flush();
    process.send?.('ready');
  } else {
    throw new Error(`unknown mode '${mode}'`);
  }
}

process.on('SIGTERM', () => process.exit(0));
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
