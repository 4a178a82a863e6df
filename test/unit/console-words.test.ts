import { deliveryLine, plural, subscriptionLabel } from '#console/words';

describe("the console's words", () => {
  it('makes the noun agree with the count: "1 image", "0 images", "2 videos"', () => {
    expect([plural(1, 'image'), plural(0, 'image'), plural(2, 'video'), plural(1200, 'credit')]).toEqual(['1 image', '0 images', '2 videos', '1,200 credits']);
    expect(plural(3, 'entry', 'entries')).toBe('3 entries');
  });

  it('says subscription statuses in words, never the API\'s past_due', () => {
    expect(subscriptionLabel('past_due')).toBe('Past due: the last payment failed');
    expect([subscriptionLabel('none'), subscriptionLabel('active'), subscriptionLabel('canceled')]).toEqual(['None', 'Active', 'Canceled']);
  });
});

describe('deliveryLine', () => {
  it("says where a delivery to the customer's storage stands, attempts counted", () => {
    const time = (iso: string | null) => `at ${iso}`;
    expect(deliveryLine({ status: 'pending', attempts: 0, last_error: null, delivered_at: null }, time)).toBe('pending');
    expect(deliveryLine({ status: 'pending', attempts: 2, last_error: 'HTTP 500', delivered_at: null }, time)).toBe('pending, retrying (2 attempts so far; last: HTTP 500)');
    expect(deliveryLine({ status: 'delivered', attempts: 3, last_error: 'HTTP 500', delivered_at: '2026-11-27T10:00:00.000Z' }, time)).toBe('delivered at 2026-11-27T10:00:00.000Z (3 attempts)');
    expect(deliveryLine({ status: 'failed', attempts: 1, last_error: 'HTTP 403 (AccessDenied)', delivered_at: null }, time)).toBe('failed after 1 attempt: HTTP 403 (AccessDenied)');
  });
});
