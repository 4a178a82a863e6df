import { ProviderUnavailableError, type GenerationProvider } from '#domain/providers/provider';
import { lazyProvider } from '#providers/lazy-provider';

const inner: GenerationProvider = {
  name: 'inner',
  submit: async () => ({ type: 'accepted', jobId: 'j1' }),
  fetchResult: async () => ({ type: 'processing' }),
  cancel: async () => undefined,
  readCallback: async () => ({ jobId: 'j1', outcome: { type: 'processing' } }),
  callbackToken: async () => undefined,
};

describe('lazyProvider', () => {
  it('builds the provider once, on first use', async () => {
    const build = jest.fn(async () => inner);
    const provider = lazyProvider('replicate', build);
    expect(build).not.toHaveBeenCalled();
    await Promise.all([provider.fetchResult('a'), provider.fetchResult('b'), provider.submit({} as never)]);
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('counts a failed build as the provider being unavailable, and tries again next time', async () => {
    const build = jest.fn().mockRejectedValueOnce(new Error('AccessDenied')).mockResolvedValue(inner);
    const provider = lazyProvider('replicate', build);
    await expect(provider.submit({} as never)).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(provider.submit({} as never)).resolves.toEqual({ type: 'accepted', jobId: 'j1' });
    expect(build).toHaveBeenCalledTimes(2);
  });
});
