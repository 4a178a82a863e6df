import type { LocalStack } from '#bin/local-stack/stack';
import { newAccount } from '#test-support/accounts';
import { call, startTestApi } from '#test-support/local-api';
import { pollUntil } from '#test-support/wait';

/**
 * Issue 34: `GET /videos?end_user=…` and `GET /images?end_user=…` over the local gateway: one
 * end user's tasks only, newest first, paged as the whole history is (docs/data-model.md 16b).
 */
jest.setTimeout(90_000);

type Json = Record<string, any>;
let stack: LocalStack;

beforeAll(async () => {
  stack = await startTestApi({ SIM_DELAY_SECONDS: '0', PROVIDER: 'simulated' });
});
afterAll(async () => {
  await stack.stop();
});

const start = async (key: string, path: '/generate' | '/generate-image', body: Json): Promise<string> => {
  const reply = await call<Json>(stack.baseUrl, path, { method: 'POST', key, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(reply.status).toBe(200);
  return reply.body.data![path === '/generate' ? 'video_id' : 'image_id'];
};
const list = (key: string, query: string) => call<Json>(stack.baseUrl, query, { key });

describe('the history of one end user', () => {
  it('lists exactly that end user\'s videos, newest first, across pages, and nobody else\'s', async () => {
    const { key } = await newAccount(stack, { credits: 1000, paid: false });
    const other = await newAccount(stack, { credits: 100, paid: false });
    const video = (endUser?: string) => start(key, '/generate', { prompt: `a kite for ${endUser ?? 'nobody'}`, duration: 3, resolution: '480p', ...(endUser && { end_user: endUser }) });
    const alice: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      alice.push(await video('alice'));
      await video('bob');
      if (i % 2 === 0) await video();
    }
    await start(other.key, '/generate', { prompt: 'not yours', duration: 3, resolution: '480p', end_user: 'alice' });

    // The index behind the list is eventually consistent: wait until the newest start shows.
    const page1 = await pollUntil(async () => {
      const reply = await list(key, '/videos?end_user=alice&limit=2');
      return reply.body.data?.videos[0]?.video_id === alice[4] && reply;
    });
    expect(page1.status).toBe(200);
    expect(page1.body.data!.videos.map((each: Json) => each.video_id)).toEqual([alice[4], alice[3]]);
    expect(page1.body.data!.videos.every((each: Json) => each.end_user === 'alice')).toBe(true);
    expect(page1.body.data!.pagination).toEqual({ page: 1, limit: 2, total: 5, total_pages: 3, has_more: true });
    const page2 = await list(key, '/videos?end_user=alice&limit=2&page=2');
    expect(page2.body.data!.videos.map((each: Json) => each.video_id)).toEqual([alice[2], alice[1]]);
    const page3 = await list(key, '/videos?end_user=alice&limit=2&page=3');
    expect(page3.body.data!.videos.map((each: Json) => each.video_id)).toEqual([alice[0]]);
    expect(page3.body.data!.pagination).toMatchObject({ total: 5, has_more: false });
    expect((await list(key, '/videos?end_user=alice&limit=2&page=4')).body.data).toMatchObject({ videos: [], pagination: { total: 5 } });

    expect((await list(key, '/videos?end_user=bob&limit=50')).body.data!.pagination.total).toBe(5);
    expect((await list(key, '/videos?end_user=carol')).body.data).toEqual({
      videos: [],
      pagination: { page: 1, limit: 20, total: 0, total_pages: 0, has_more: false },
    });
    // Unfiltered, the history holds everyone's.
    expect((await list(key, '/videos?limit=1')).body.data!.pagination.total).toBe(13);
    expect((await list(other.key, '/videos?end_user=alice')).body.data!.pagination.total).toBe(1);
  });

  it("lists one end user's images apart from their videos", async () => {
    const { key } = await newAccount(stack, { credits: 1000 });
    const images = [await start(key, '/generate-image', { prompt: 'a red cup', end_user: 'alice' }), await start(key, '/generate-image', { prompt: 'a blue cup', end_user: 'bob' })];
    images.push(await start(key, '/generate-image', { prompt: 'a green cup', end_user: 'alice' }));
    await start(key, '/generate', { prompt: 'a kite', duration: 3, resolution: '480p', end_user: 'alice' });
    const page = await pollUntil(async () => {
      const reply = await list(key, '/images?end_user=alice');
      return reply.body.data?.images.length === 2 && reply;
    });
    expect(page.body.data!.images.map((each: Json) => each.image_id)).toEqual([images[2], images[0]]);
    expect(page.body.data!.pagination).toMatchObject({ total: 2, has_more: false });
  });

  it.each([
    ['/videos?end_user=alice%231', /^end_user: must be 1 to 128 characters/],
    ['/images?end_user=', /^end_user: must be 1 to 128 characters/],
    [`/videos?end_user=${'a'.repeat(129)}`, /^end_user: must be 1 to 128 characters/],
    ['/videos?end_user=alice&limit=0', /^limit: /],
  ])('refuses %s with a 400 naming the field', async (query, message) => {
    const { key } = await newAccount(stack, { credits: 10, paid: false });
    const reply = await list(key, query);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 'validation_error', message: expect.stringMatching(message) });
  });
});
