export * from './edge.schema';
export * from './merchant.entity';
export * from './merchant.repository';
