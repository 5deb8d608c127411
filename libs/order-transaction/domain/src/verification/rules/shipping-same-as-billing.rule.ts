import type { Address, SAME_AS_BILLING } from '@gateway/contracts';

export type SameAsBilling = (typeof SAME_AS_BILLING)[number];

const COMPARED_FIELDS = [
  'city',
  'company',
  'country',
  'postcodeZip',
  'stateProvince',
  'stateProvinceCode',
] as const;

/**
 * `shipping.address.sameAsBilling` when the merchant did not send it (the spec's default):
 * SAME when both addresses are supplied and equal ignoring non-alphanumeric characters,
 * DIFFERENT when both are supplied and differ, UNKNOWN when one is absent. A value the
 * merchant sent is kept. Undefined when neither address was supplied (nothing to say).
 *
 * The comparison keeps letter case (the spec ignores only non-alphanumerics) and compares
 * street and street2 as one line, because responses join them into `street` anyway and
 * merchants split the same address across the two lines differently.
 */
export function deriveSameAsBilling(
  billing: Address | undefined,
  shipping: (Address & { sameAsBilling?: SameAsBilling }) | undefined,
): SameAsBilling | undefined {
  if (shipping?.sameAsBilling) {
    return shipping.sameAsBilling;
  }
  const billingSupplied = isSupplied(billing);
  const shippingSupplied = isSupplied(shipping);
  if (!billingSupplied && !shippingSupplied) {
    return undefined;
  }
  if (!billingSupplied || !shippingSupplied) {
    return 'UNKNOWN';
  }
  return sameAddress(billing!, shipping!) ? 'SAME' : 'DIFFERENT';
}

function sameAddress(a: Address, b: Address): boolean {
  if (
    alphanumerics(`${a.street ?? ''}${a.street2 ?? ''}`) !==
    alphanumerics(`${b.street ?? ''}${b.street2 ?? ''}`)
  ) {
    return false;
  }
  return COMPARED_FIELDS.every((field) => alphanumerics(a[field]) === alphanumerics(b[field]));
}

function isSupplied(address: Address | undefined): boolean {
  if (!address) {
    return false;
  }
  return [...COMPARED_FIELDS, 'street', 'street2'].some((field) => {
    const value = address[field as keyof Address];
    return typeof value === 'string' && value.length > 0;
  });
}

/** Letters and digits of any script, nothing else. */
function alphanumerics(value: string | undefined): string {
  return (value ?? '').replace(/[^\p{L}\p{N}]/gu, '');
}
