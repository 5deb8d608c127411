import type { MerchantDirectory } from '@gateway/edge/domain';
import { AppLogger, DatabaseConnection, DatabaseListenerHandlers, Metrics } from '@gateway/platform';
import { MerchantChangesListener } from './merchant-changes.listener';

/** The handlers the listener gave its DatabaseListener (the real one: database-listener.int-spec.ts). */
let handlers: DatabaseListenerHandlers;
jest.mock('@gateway/platform', () => ({
  ...jest.requireActual('@gateway/platform'),
  DatabaseListener: jest.fn().mockImplementation((_config: unknown, _options: unknown, given: DatabaseListenerHandlers) => {
    handlers = given;
    return { start: jest.fn(async () => undefined), stop: jest.fn(async () => undefined) };
  }),
}));

/**
 * What the edge does with the news of its listening session: which profiles it drops, what it
 * logs and what its metric says. With the database: merchant-cache-invalidation.int-spec.ts.
 */
describe('MerchantChangesListener', () => {
  function setUp() {
    const directory = { forget: jest.fn(), forgetAll: jest.fn() };
    const logger = { info: jest.fn(), warn: jest.fn(), debug: jest.fn() };
    const metrics = new Metrics();
    const connection = { url: 'postgres://edge@db.example/gateway', applicationName: 'api-edge' } as DatabaseConnection;
    new MerchantChangesListener(directory as unknown as MerchantDirectory, connection, logger as unknown as AppLogger, metrics);
    const listening = async () => (await metrics.registry.getSingleMetric('gateway_edge_merchant_changes_listening')!.get()).values[0].value;
    return { directory, logger, listening };
  }

  it('drops the profile of each merchant the database notifies', () => {
    const { directory } = setUp();
    handlers.notified('SHOP1');
    expect(directory.forget).toHaveBeenCalledWith('SHOP1');
    expect(directory.forgetAll).not.toHaveBeenCalled();
  });

  it('drops every profile when the database notifies that the merchants were truncated', () => {
    const { directory } = setUp();
    handlers.notified('*');
    expect(directory.forgetAll).toHaveBeenCalledTimes(1);
    expect(directory.forget).not.toHaveBeenCalled();
  });

  it('drops every profile each time it listens, since what changed meanwhile was told to no one, and says when it listens again', async () => {
    const { directory, logger, listening } = setUp();
    expect(await listening()).toBe(0);
    handlers.listening(101);
    expect(directory.forgetAll).toHaveBeenCalledTimes(1);
    expect(await listening()).toBe(1);
    expect(logger.info).toHaveBeenLastCalledWith({ backendPid: 101 }, 'listening for merchant changes');

    handlers.lost(new Error('the database connection ended'));
    expect(await listening()).toBe(0);
    handlers.listening(102);
    expect(directory.forgetAll).toHaveBeenCalledTimes(2);
    expect(await listening()).toBe(1);
    expect(logger.info).toHaveBeenLastCalledWith({ backendPid: 102 }, 'listening for merchant changes again; every cached merchant profile dropped');
  });

  it('warns once per loss, however many attempts to connect again fail, and again after a loss that follows a return', () => {
    const { logger } = setUp();
    handlers.listening(101);
    handlers.lost(new Error('the database connection ended'));
    handlers.lost(new Error('connect ECONNREFUSED'));
    handlers.lost(new Error('connect ECONNREFUSED'));
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn).toHaveBeenCalledWith(expect.anything(), expect.stringContaining('not listening for merchant changes'));
    expect(logger.debug).toHaveBeenCalledTimes(2);

    handlers.listening(102);
    handlers.lost(new Error('the database connection ended'));
    expect(logger.warn).toHaveBeenCalledTimes(2);
  });
});
