export const HEALTH_OPTIONS = Symbol('HEALTH_OPTIONS');
