import { Metrics, PoolStats } from './metrics';

describe('Metrics: database pools', () => {
  it('reports busy, idle and maximum connections and waiting queries of each pool at scrape time', async () => {
    const metrics = new Metrics();
    let stats: PoolStats = { totalCount: 3, idleCount: 1, waitingCount: 0 };
    metrics.registerDatabasePool({ schema: 'token_vault', maxConnections: 10, stats: () => stats });

    let text = await metrics.registry.metrics();
    expect(text).toContain('gateway_db_pool_connections{schema="token_vault",state="busy"} 2');
    expect(text).toContain('gateway_db_pool_connections{schema="token_vault",state="idle"} 1');
    expect(text).toContain('gateway_db_pool_connections{schema="token_vault",state="max"} 10');
    expect(text).toContain('gateway_db_pool_waiting_queries{schema="token_vault"} 0');

    stats = { totalCount: 10, idleCount: 0, waitingCount: 4 };
    text = await metrics.registry.metrics();
    expect(text).toContain('gateway_db_pool_connections{schema="token_vault",state="busy"} 10');
    expect(text).toContain('gateway_db_pool_waiting_queries{schema="token_vault"} 4');
  });

  it('reports an empty pool while the database is not connected yet', async () => {
    const metrics = new Metrics();
    metrics.registerDatabasePool({ schema: 'edge', maxConnections: 4, stats: () => undefined });
    const text = await metrics.registry.metrics();
    expect(text).toContain('gateway_db_pool_connections{schema="edge",state="busy"} 0');
    expect(text).toContain('gateway_db_pool_connections{schema="edge",state="max"} 4');
  });
});
