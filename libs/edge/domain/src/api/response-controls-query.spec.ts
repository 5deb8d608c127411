import { defaultMerchantSettings, GatewayError, MerchantContext } from '@gateway/contracts';
import { responseControlsFromQuery, unmaskRequestedInQuery } from './response-controls-query';

const PATH = '/api/rest/version/100/merchant/M1/token/T1';

function refusal(run: () => unknown): Record<string, unknown> {
  try {
    run();
  } catch (err) {
    if (err instanceof GatewayError) return { status: err.httpStatus, field: err.field, validationType: err.validationType };
    throw err;
  }
  throw new Error('expected a 400');
}

const merchant = (unmask: boolean): MerchantContext => {
  const settings = defaultMerchantSettings();
  return { id: 'M1', mode: 'TEST', settings: { ...settings, privileges: { ...settings.privileges, unmask } } };
};

describe('responseControls.sensitiveData on a GET (query string)', () => {
  it('reads the parameter, decoded, and nothing when there is no query', () => {
    expect(responseControlsFromQuery(`${PATH}?responseControls.sensitiveData=UNMASK`)).toEqual({ responseControls: { sensitiveData: 'UNMASK' } });
    expect(responseControlsFromQuery(`${PATH}?responseControls%2EsensitiveData=UN%4DASK`)).toEqual({ responseControls: { sensitiveData: 'UNMASK' } });
    expect(responseControlsFromQuery(PATH)).toEqual({});
    expect(responseControlsFromQuery(`${PATH}?`)).toEqual({});
  });

  it('reads a query of bare separators, as URL builders leave them, as no parameter (it was a 500)', () => {
    for (const query of ['?&', '?&&&']) {
      expect(responseControlsFromQuery(`${PATH}${query}`)).toEqual({});
      expect(unmaskRequestedInQuery(`${PATH}${query}`, merchant(false), 'PASSWORD')).toBe(false);
    }
    expect(responseControlsFromQuery(`${PATH}?&responseControls.sensitiveData=MASK&`)).toEqual({ responseControls: { sensitiveData: 'MASK' } });
  });

  it.each([
    ['another parameter', `${PATH}?debug=1`, { status: 400, field: undefined }],
    ['a repeated parameter', `${PATH}?responseControls.sensitiveData=MASK&responseControls.sensitiveData=UNMASK`, { status: 400, field: 'responseControls.sensitiveData' }],
    ['an empty value', `${PATH}?responseControls.sensitiveData=`, { status: 400, field: 'responseControls.sensitiveData' }],
    ['a value over 50 characters', `${PATH}?responseControls.sensitiveData=${'A'.repeat(51)}`, { status: 400, field: 'responseControls.sensitiveData' }],
    ['a control character', `${PATH}?responseControls.sensitiveData=UN%0AMASK`, { status: 400, field: 'responseControls.sensitiveData' }],
  ])('refuses %s with a 400', (_name, url, expected) => {
    expect(refusal(() => responseControlsFromQuery(url))).toMatchObject(expected);
  });

  it('applies the one UNMASK rule: permission and certificate, else a 400 on the field', () => {
    const url = `${PATH}?responseControls.sensitiveData=UNMASK`;
    expect(unmaskRequestedInQuery(url, merchant(true), 'CERTIFICATE')).toBe(true);
    expect(refusal(() => unmaskRequestedInQuery(url, merchant(true), 'PASSWORD'))).toEqual({ status: 400, field: 'responseControls.sensitiveData', validationType: 'INVALID' });
    expect(refusal(() => unmaskRequestedInQuery(url, merchant(false), 'CERTIFICATE'))).toMatchObject({ status: 400, field: 'responseControls.sensitiveData' });
    expect(unmaskRequestedInQuery(PATH, merchant(false), 'PASSWORD')).toBe(false);
  });
});
