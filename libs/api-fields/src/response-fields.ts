/** The Address group's fields as requests carry them (billing, shipping, posTerminal). */
export interface AddressFields {
  readonly city?: string;
  readonly company?: string;
  readonly country?: string;
  readonly postcodeZip?: string;
  readonly stateProvince?: string;
  readonly stateProvinceCode?: string;
  readonly street?: string;
  readonly street2?: string;
}

const STREET_LENGTH = 100;

/**
 * An address as transaction responses carry it (spec, Address group): `street` holds street
 * and street2 joined (cut to the field's 100 characters) and street2 is left out.
 */
export function addressForResponse(address: AddressFields): Record<string, string> {
  const { street, street2, ...rest } = address;
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(rest)) {
    if (typeof value === 'string') {
      fields[key] = value;
    }
  }
  const joined = [street, street2].filter((line): line is string => line !== undefined && line !== '').join(' ');
  return joined ? { ...fields, street: joined.slice(0, STREET_LENGTH) } : fields;
}
