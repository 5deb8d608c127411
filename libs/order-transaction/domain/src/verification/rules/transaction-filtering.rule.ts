import { AvsGatewayCode, resultOfGatewayCode } from '@gateway/acquirer';
import type { AvsResponseCodeRule, AvsResponseCodeRuleRequest, TransactionResult } from '@gateway/contracts';
import { invalid } from '../../request-errors/request-errors';

export type AvsRuleAction = 'NO_ACTION' | 'REJECT' | 'REVIEW';

const RULES_FIELD = 'order.transactionFiltering.avsResponseCodeRules';

/** The rule that decided, and where it came from. */
export interface AvsFilteringDecision {
  readonly avsResponseCode: AvsGatewayCode;
  readonly action: AvsRuleAction;
  readonly source: 'REQUEST' | 'MERCHANT';
}

export interface FilteredOutcome {
  readonly gatewayCode: string;
  readonly result: TransactionResult;
  /** Absent when no rule names the returned AVS code (nothing to act on or record). */
  readonly filtering?: AvsFilteringDecision;
}

/**
 * A request's rules name each AVS code once; a second rule for the same code is ambiguous
 * (which action wins?), so it is rejected before anything reaches the acquirer.
 */
export function checkAvsResponseCodeRules(rules: readonly AvsResponseCodeRuleRequest[] | undefined): void {
  const seen = new Set<string>();
  rules?.forEach((rule, index) => {
    if (seen.has(rule.avsResponseCode)) {
      throw invalid(
        `${RULES_FIELD}[${index}].avsResponseCode`,
        rule.avsResponseCode,
        'Only one rule may be given for each AVS response code.',
      );
    }
    seen.add(rule.avsResponseCode);
  });
}

/**
 * Transaction filtering on the AVS result. A rule in the request overrides the merchant
 * profile's rule for the same AVS code (codes the request does not name keep the profile's
 * rule: docs/decisions/avs-rules-override-per-code.md). REJECT turns an approved transaction
 * into DECLINED_AVS with result FAILURE; an outcome that is already a failure or unknown
 * keeps its code. REVIEW and NO_ACTION leave the outcome as it is; REVIEW is recorded.
 */
export function applyAvsFiltering(input: {
  gatewayCode: string;
  avsCode: AvsGatewayCode;
  requestRules?: readonly AvsResponseCodeRuleRequest[];
  merchantRules: readonly AvsResponseCodeRule[];
}): FilteredOutcome {
  const filtering = decisionFor(input.avsCode, input.requestRules, input.merchantRules);
  const result = resultOfGatewayCode(input.gatewayCode);
  if (filtering?.action === 'REJECT' && result === 'SUCCESS') {
    return { gatewayCode: 'DECLINED_AVS', result: 'FAILURE', filtering };
  }
  return { gatewayCode: input.gatewayCode, result, ...(filtering ? { filtering } : {}) };
}

function decisionFor(
  avsCode: AvsGatewayCode,
  requestRules: readonly AvsResponseCodeRuleRequest[] | undefined,
  merchantRules: readonly AvsResponseCodeRule[],
): AvsFilteringDecision | undefined {
  const fromRequest = requestRules?.find((rule) => rule.avsResponseCode === avsCode);
  if (fromRequest && isAction(fromRequest.action)) {
    return { avsResponseCode: avsCode, action: fromRequest.action, source: 'REQUEST' };
  }
  const fromMerchant = merchantRules.find((rule) => rule.avsResponseCode === avsCode);
  if (fromMerchant && isAction(fromMerchant.action)) {
    return { avsResponseCode: avsCode, action: fromMerchant.action, source: 'MERCHANT' };
  }
  return undefined;
}

function isAction(value: string): value is AvsRuleAction {
  return value === 'NO_ACTION' || value === 'REJECT' || value === 'REVIEW';
}
