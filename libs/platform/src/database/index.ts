export * from './service-data-source';
export * from './migrate';
export * from './embedded-postgres';
export * from './service-database.module';
export * from './provision-roles';
export * from './service-databases';
export * from './prepared-statement';
export * from './database-unavailable';
