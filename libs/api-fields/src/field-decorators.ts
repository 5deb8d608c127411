import { Type } from 'class-transformer';
import { ArrayMinSize, IsArray, IsDefined, IsOptional, ValidateBy, ValidateNested } from 'class-validator';
import { FieldType } from './field-type';
import {
  alnumType,
  asciiType,
  base64Type,
  booleanType,
  cardNumberType,
  customDataType,
  dateTimeType,
  dateType,
  decInType,
  digitsType,
  digitValueType,
  emailType,
  expiryYearType,
  freeTextType,
  enumType,
  hexType,
  intType,
  ipAddressType,
  jsonTextType,
  letterType,
  postcodeZipType,
  protocolVersionType,
  stringType,
  telType,
  unlistedEnumType,
  upper3Type,
  urlType,
} from './field-types';
import { declareField, FieldOptions, RequestClass } from './request-schema';

/**
 * One decorator per field type of the spec. Each records the field for the validation engine
 * (validateRequest: ordered problems, request paths, unknown fields) and also registers the
 * same check with class-validator, so the request classes validate with `validateSync` as
 * well (with `whitelist` and `forbidNonWhitelisted` for unknown fields).
 */
export function Field(type: FieldType, options: FieldOptions = {}, decorator = 'Field'): PropertyDecorator {
  return (prototype, key) => {
    const name = String(key);
    declareField(prototype, {
      kind: 'value',
      name,
      type,
      required: options.required === true,
      sensitive: options.sensitive === true,
      label: options.label,
      decorator: `@${decorator}`,
    });
    presence(options)(prototype, key);
    ValidateBy({
      name: type.notation,
      validator: {
        validate: (value: unknown) => type.check(value) === null,
        defaultMessage: (args) => `${args?.property} ${type.check(args?.value)}`,
      },
    })(prototype, key);
  };
}

function presence(options: FieldOptions): PropertyDecorator {
  return options.required ? IsDefined() : IsOptional();
}

type Options = FieldOptions | undefined;

/** String(a-b): any characters, length a to b. */
export const StringField = (min: number, max: number, o?: Options) => Field(stringType(min, max), o, 'StringField');
/** String(a-b) of the custom data fields, holding no card number (the spec rejects sensitive data there). */
export const CustomDataField = (min: number, max: number, o?: Options) => Field(customDataType(min, max), o, 'CustomDataField');
/** String(a-b) of text written for people (notes, descriptions, item names), holding no card number of a major scheme. */
export const FreeTextField = (min: number, max: number, o?: Options) => Field(freeTextType(min, max), o, 'FreeTextField');
/** ASCII(a-b): printable ASCII. */
export const AsciiField = (min: number, max: number, o?: Options) => Field(asciiType(min, max), o, 'AsciiField');
/** Alnum(a-b): 0-9 a-z A-Z. */
export const AlnumField = (min: number, max: number, o?: Options) => Field(alnumType(min, max), o, 'AlnumField');
/** Hex(a-b). */
export const HexField = (min: number, max: number, o?: Options) => Field(hexType(min, max), o, 'HexField');
/** Digits(a-b): a string of 0-9, length a to b. */
export const DigitsField = (min: number, max: number, o?: Options) => Field(digitsType(min, max), o, 'DigitsField');
/** A card number: Digits(9-19) passing the Luhn check. */
export const CardNumberField = (o?: Options) => Field(cardNumberType(), o, 'CardNumberField');
/** A card expiry year: Digits(2-2), explained as the year's last 2 digits. */
export const ExpiryYearField = (o?: Options) => Field(expiryYearType(), o, 'ExpiryYearField');
/** Digits with value bounds: `@DigitValueField(1n, 12n, { label: 'Month' })`. */
export const DigitValueField = (min: bigint, max: bigint, o?: Options) => Field(digitValueType(min, max), o, 'DigitValueField');
/** DecIn: a decimal amount string of 1-14 characters. */
export const DecInField = (o?: Options) => Field(decInType(), o, 'DecInField');
/** DecIn that may be negative (item unit price and unit tax). */
export const SignedDecInField = (o?: Options) => Field(decInType({ signed: true }), o, 'SignedDecInField');
/** Upper3: a 3-letter ISO country code. */
export const Upper3Field = (o?: Options) => Field(upper3Type(), o, 'Upper3Field');
/** Upper3 that must also be an ISO 4217 currency code. */
export const CurrencyField = (o?: Options) => Field(upper3Type({ currency: true }), o, 'CurrencyField');
export const EmailField = (o?: Options) => Field(emailType(), o, 'EmailField');
export const TelField = (o?: Options) => Field(telType(), o, 'TelField');
export const DateField = (o?: Options) => Field(dateType(), o, 'DateField');
export const DateTimeField = (o?: Options) => Field(dateTimeType(), o, 'DateTimeField');
export const UrlField = (o?: Options) => Field(urlType(), o, 'UrlField');
export const BooleanField = (o?: Options) => Field(booleanType(), o, 'BooleanField');
/** Int: a JSON integer within bounds. */
export const IntField = (min: number, max: number, o?: Options) => Field(intType(min, max), o, 'IntField');
/** Base64 with its allowed lengths: `@Base64Field({ exactly: [28, 32] })` or `{ min, max }`. */
export const Base64Field = (length: { exactly: number[] } | { min: number; max: number }, o?: Options) =>
  Field(base64Type(length), o, 'Base64Field');
export const PostcodeZipField = (o?: Options) => Field(postcodeZipType(), o, 'PostcodeZipField');
/** device.ipAddress: nnn.nnn.nnn.nnn. */
export const IpAddressField = (o?: Options) => Field(ipAddressType(), o, 'IpAddressField');
/** A case-sensitive enumeration. */
export const EnumField = (values: readonly string[], o?: Options) => Field(enumType(values), o, 'EnumField');
/** An enumeration whose values the spec does not show. */
export const UnlistedEnumField = (o?: Options) => Field(unlistedEnumType(), o, 'UnlistedEnumField');
export const JsonTextField = (min: number, max: number, o?: Options) => Field(jsonTextType(min, max), o, 'JsonTextField');
export const ProtocolVersionField = (o?: Options) => Field(protocolVersionType(), o, 'ProtocolVersionField');
export const LetterField = (o?: Options) => Field(letterType(), o, 'LetterField');


/** A nested group (`billing.address`). */
export function GroupField(target: () => RequestClass, options: FieldOptions = {}): PropertyDecorator {
  return (prototype, key) => {
    declareField(prototype, { kind: 'group', name: String(key), target, required: options.required === true, decorator: '@GroupField' });
    presence(options)(prototype, key);
    ValidateNested()(prototype, key);
    Type(target)(prototype, key);
  };
}

/** An array of groups (`order.item[n]`): a JSON array of 1 or more objects. */
export function GroupArrayField(target: () => RequestClass, options: FieldOptions = {}): PropertyDecorator {
  return (prototype, key) => {
    declareField(prototype, { kind: 'array', name: String(key), target, required: options.required === true, decorator: '@GroupArrayField' });
    presence(options)(prototype, key);
    IsArray()(prototype, key);
    ArrayMinSize(1)(prototype, key);
    ValidateNested({ each: true })(prototype, key);
    Type(target)(prototype, key);
  };
}

/** Custom field names: fewer than 100 characters of A-Z a-z 0-9. */
export const CUSTOM_FIELD_NAME = /^[A-Za-z0-9]{1,99}$/;
export const CUSTOM_FIELDS_MAX = 50;
const CUSTOM_VALUE = stringType(1, 250);

/**
 * `order.custom.<name>`: up to 50 fields named with fewer than 100 characters of A-Z a-z 0-9,
 * each a String(1-250).
 */
export function CustomFieldsField(options: FieldOptions = {}): PropertyDecorator {
  return (prototype, key) => {
    declareField(prototype, {
      kind: 'custom',
      name: String(key),
      required: options.required === true,
      maxFields: CUSTOM_FIELDS_MAX,
      value: CUSTOM_VALUE,
      decorator: '@CustomFieldsField',
    });
    presence(options)(prototype, key);
    ValidateBy({
      name: 'customFields',
      validator: {
        validate: (value: unknown) => {
          if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
          const entries = Object.entries(value);
          return (
            entries.length <= CUSTOM_FIELDS_MAX &&
            entries.every(([name, text]) => CUSTOM_FIELD_NAME.test(name) && CUSTOM_VALUE.check(text) === null)
          );
        },
        defaultMessage: (args) => `${args?.property} must hold up to ${CUSTOM_FIELDS_MAX} fields named with A-Z a-z 0-9, each 1 to 250 characters`,
      },
    })(prototype, key);
  };
}
