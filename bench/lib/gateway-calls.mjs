// What the benchmarks that drive the service through its API send: JSON calls that must succeed,
// and the init-iframe request of a checkout.
import { httpRequest } from './processes.mjs';

/**
 * A JSON call to the service on `port` with these headers (unless the call names its own): the
 * parsed answer, or an error naming the call when the service answered 300 or more.
 */
export function jsonCaller(defaultHeaders) {
  return async function call(port, path, { method = 'GET', headers = defaultHeaders, body } = {}) {
    const res = await httpRequest(port, path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: 30_000,
    });
    const text = res.body.toString('utf8');
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

/** An init-iframe request of a 10.00 EUR checkout with this key and description. */
export function initIframeRequest(validationKey, description) {
  return {
    money: { amount: '10.00', currency: 'EUR' },
    client: {
      firstName: 'Ann',
      lastName: 'Lee',
      phone: '871234567',
      dialingCode: '+353',
      nationality: 'IE',
      emailAddress: 'ann@example.org',
      dob: '1990-01-31',
    },
    address: { addressLine1: '1 Main St', countryCode: 'IE', city: 'Dublin' },
    validationKey,
    clientReference: 'bench',
    traceId: validationKey,
    description,
    destinationAccountNumber: '5001000001223369',
    brandId: '001',
    returnUrl: 'https://shop.example/return',
  };
}
