export * from './infra';
export * from './test-cards';
export * from './database';
export * from './vault-keys';
export * from './schema-dump';
export * from './tls-certificates';
export * from './webhook-receiver';
export * from './test-pki';
export * from './at-rest-scan';
export * from './request-hash-key';
export * from './config-errors';
export * from './seeded-random';
export * from './interleaved-data-source';
export * from './ledger-audit';
export {
  checkResponse,
  describeViolations,
  isMerchantApiPath,
  operationOf,
  type ConformanceAnswer,
  type ConformanceOptions,
  type ConformanceRequest,
  type Violation,
} from './response-conformance';
export * from './log-lines';
export * from './operator-command-process';
