// Integration tests start apps, TLS servers and throwaway databases against real Postgres, Redis
// and NATS; beside the other Jest workers on a 2-core machine, a setup hook can outlast Jest's
// default 5 s (certificate-authentication's did once). Specs that need longer set their own.
jest.setTimeout(20_000);
