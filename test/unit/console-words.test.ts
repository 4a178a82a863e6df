import { plural, subscriptionLabel } from '#console/words';

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
