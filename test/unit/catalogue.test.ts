import { imagePrice, subscriptionRequired, videoPrice } from '#domain/catalogue';

describe('prices', () => {
  it.each([
    ['vid-1-5-pro', 3, 15],
    ['vid-1-5-pro', 5, 25],
    ['vid-1-5-pro', 12, 60],
    ['vid-2-0', 3, 23],
    ['vid-2-0', 5, 38],
    ['vid-2-0', 12, 90],
    ['vid-2-0-fast', 3, 15],
    ['vid-2-0-fast', 5, 25],
    ['vid-2-0-fast', 12, 60],
  ] as const)('%s for %i s costs %i credits', (model, duration, credits) => {
    expect(videoPrice(model, duration)).toBe(credits);
  });

  it('charges 5 credits per image', () => {
    expect(imagePrice('image-2')).toBe(5);
  });

  it('needs a subscription for every model but the lite video model', () => {
    expect(subscriptionRequired('vid-1-5-pro')).toBe(false);
    expect(subscriptionRequired('vid-2-0')).toBe(true);
    expect(subscriptionRequired('vid-2-0-fast')).toBe(true);
    expect(subscriptionRequired('image-2')).toBe(true);
  });
});
