export * from './all-exceptions.filter';
