export * from './background-jobs';
export * from './bootstrap';
export * from './entry-point-line';
export * from './service-main';
export * from './periodic-job';
export * from './personal-data-retention';
export * from './startup-error';
