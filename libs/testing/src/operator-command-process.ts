/**
 * For specs of a service main's operator commands run as the main runs them: registers the
 * spec's hooks that unset DATABASE_URL (an answer that needs no database must not read it),
 * capture what is written to stdout and stderr, make process.exit throw, and restore all of it
 * and process.exitCode after each test. Answers the writes of the current test.
 */
export function operatorCommandProcess(): { out: string[]; err: string[] } {
  const saved = { url: process.env.DATABASE_URL, exitCode: process.exitCode };
  const written = { out: [] as string[], err: [] as string[] };

  beforeEach(() => {
    delete process.env.DATABASE_URL;
    written.out.length = 0;
    written.err.length = 0;
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => (written.out.push(String(chunk)), true));
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => (written.err.push(String(chunk)), true));
    jest.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Error(`process.exit(${code})`);
    });
  });

  afterEach(() => {
    jest.restoreAllMocks();
    if (saved.url === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved.url;
    process.exitCode = saved.exitCode;
  });

  return written;
}
