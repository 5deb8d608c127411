import { RunningApp } from './bootstrap';
import { RequestContextInterceptor } from './messaging';
import { startPlatformApp } from './test-support';

// Each test starts a Nest app with its HTTP server: more than the unit tier's 5 s on a loaded machine.
jest.setTimeout(30_000);

describe('PlatformModule: the message handlers\' interceptor', () => {
  let running: RunningApp | undefined;
  let intercept: jest.SpyInstance;

  beforeEach(() => {
    intercept = jest.spyOn(RequestContextInterceptor.prototype, 'intercept');
  });

  afterEach(async () => {
    intercept.mockRestore();
    await running?.shutdown('test over');
    running = undefined;
  });

  it('is not run around the HTTP handlers of an app that answers no subjects (api-edge)', async () => {
    running = await startPlatformApp('platform-probe', { answersMessages: false });

    const live = await fetch(`${running.url}/health/live`);

    expect(live.status).toBe(200);
    expect(intercept).not.toHaveBeenCalled();
  });

  it('is every app\'s by default: Nest runs it around every handler, HTTP ones too', async () => {
    running = await startPlatformApp('platform-probe');

    const live = await fetch(`${running.url}/health/live`);

    expect(live.status).toBe(200);
    expect(intercept).toHaveBeenCalledTimes(1);
  });
});
