// End-to-end tests cross processes (and the admin CLI starts a Node process per call); under
// load on a 2-core machine, Jest's default 5 s is too tight for a single test.
jest.setTimeout(30_000);
