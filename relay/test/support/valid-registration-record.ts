/**
 * A stored registration record that readRegistrationRecord accepts for `websiteId`: the base the
 * property tests alter one field of, so a refusal is the altered field's doing.
 */
export function validRegistrationRecord(websiteId: string) {
  return {
    websiteId,
    allowOrigins: null,
    hourlyBudget: 100,
    tokenEnding: 'abcd',
    shop: null,
    token: { keyId: 'a', iv: 'AAAAAAAAAAAAAAAA', sealed: 'c2VhbGVk' },
    savedAtMs: 1,
  };
}
