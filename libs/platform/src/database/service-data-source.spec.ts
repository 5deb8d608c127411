import { serviceDataSourceOptions, withoutOptionsParameter } from './service-data-source';

describe("a DATABASE_URL's `options` parameter", () => {
  it('is taken out of the URL, the rest of its query kept', () => {
    expect(withoutOptionsParameter('postgres://u:p%40ss@db:5432/gw?sslmode=require&options=-c%20work_mem%3D5MB')).toEqual({
      url: 'postgres://u:p%40ss@db:5432/gw?sslmode=require',
      options: '-c work_mem=5MB',
    });
    expect(withoutOptionsParameter('postgres://u:p@db/gw?options=-c%20work_mem%3D5MB')).toEqual({ url: 'postgres://u:p@db/gw', options: '-c work_mem=5MB' });
  });

  it('leaves a URL without one exactly as it was', () => {
    for (const url of ['postgres://u:p%2Fw@db:5432/gw', 'postgres://u:p@db/gw?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem']) {
      expect(withoutOptionsParameter(url)).toEqual({ url });
    }
  });

  it("is sent after the pool's keepalive settings, so the URL's win where both set one", () => {
    const options = serviceDataSourceOptions(
      { schema: 'edge', entities: [], migrations: [] },
      { url: 'postgres://u:p@db/gw?options=-c%20tcp_keepalives_count%3D7', poolSize: 2, statementTimeoutMs: 1_000, applicationName: 'x' },
    ) as { url: string; extra: { options: string } };

    expect(options.url).toBe('postgres://u:p@db/gw');
    expect(options.extra.options).toBe('-c tcp_keepalives_idle=30 -c tcp_keepalives_interval=10 -c tcp_keepalives_count=3 -c tcp_user_timeout=60000 -c tcp_keepalives_count=7');
  });
});
