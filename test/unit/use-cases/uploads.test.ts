import { NotFoundError, ValidationError } from '#domain/shared/errors';
import { completeDirectUpload, createDirectUpload, storeUpload } from '#domain/uploads/uploads';
import { imageDeclaring, withMetadataBefore } from '#test-support/declared-size';
import { MemoryUploadPublications, MemoryUploadStorage } from '#test-support/memory-stores';

/** Reference-image uploads on the in-memory bucket (on s3rver: test/e2e/uploads.test.ts). */
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100, 1)]);
const TEXT = Buffer.from('not an image at all, whatever its name says');

const NOW = new Date('2026-03-01T12:00:00.000Z');

let storage: MemoryUploadStorage;
let publications: MemoryUploadPublications;
/** The completion's dependencies: a fixed task clock, real time for its wait. */
const deps = () => ({ storage, publications, clock: () => NOW, realTime: Date.now });
beforeEach(() => {
  storage = new MemoryUploadStorage();
  publications = new MemoryUploadPublications();
});

it('stores an image under an unguessable public key, typed by its bytes', async () => {
  const view = await storeUpload(storage, 'acc_1', JPEG);
  expect(view).toEqual({ url: expect.stringMatching(/^https:\/\/media\.test\/uploads\/[0-9a-f]{32}\.jpg$/), contentType: 'image/jpeg', size: JPEG.length });
  const key = view.url.slice('https://media.test/'.length);
  expect(storage.objects.get(key)).toMatchObject({ contentType: 'image/jpeg', accountId: 'acc_1', public: true });
  await expect(storeUpload(storage, 'acc_1', TEXT)).rejects.toBeInstanceOf(ValidationError);
  expect(storage.objects.size).toBe(1);
});

it('publishes a checked direct upload and removes the incoming object', async () => {
  const upload = await createDirectUpload(storage, 'acc_1', NOW);
  expect(upload).toMatchObject({ uploadId: expect.stringMatching(/^upl_[0-9a-f]{32}$/), expiresAt: '2026-03-01T12:15:00.000Z' });
  const incoming = upload.fields.key!;
  expect(storage.presigned.get(incoming)).toEqual({ maxBytes: upload.maxBytes, expiresSeconds: 900 });
  await expect(completeDirectUpload(deps(), 'acc_1', upload.uploadId)).rejects.toBeInstanceOf(NotFoundError);

  storage.simulateDirectUpload(incoming, JPEG);
  // Another account cannot complete it.
  await expect(completeDirectUpload(deps(), 'acc_2', upload.uploadId)).rejects.toBeInstanceOf(NotFoundError);
  const view = await completeDirectUpload(deps(), 'acc_1', upload.uploadId);
  expect(view).toMatchObject({ contentType: 'image/jpeg', size: JPEG.length });
  expect(storage.objects.has(incoming)).toBe(false);
  expect([...storage.objects.values()]).toEqual([expect.objectContaining({ public: true, accountId: 'acc_1', contentType: 'image/jpeg' })]);
});

it('deletes a direct upload that is not an image', async () => {
  const upload = await createDirectUpload(storage, 'acc_1', NOW);
  storage.simulateDirectUpload(upload.fields.key!, TEXT);
  await expect(completeDirectUpload(deps(), 'acc_1', upload.uploadId)).rejects.toBeInstanceOf(ValidationError);
  expect(storage.objects.size).toBe(0);
});

describe('decompression bombs: a declared size over 8192 pixels per side is refused, naming image and the limit', () => {
  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  };

  it('POST /upload: nothing is stored', async () => {
    const error = await refusal(storeUpload(storage, 'acc_1', await imageDeclaring('png', 16000, 16000)));
    expect(error.field).toBe('image');
    expect(error.message).toBe('image: it declares 16000x16000 pixels; at most 8192 pixels per side are accepted. Scale it down and upload it again.');
    expect(storage.objects.size).toBe(0);
    await expect(storeUpload(storage, 'acc_1', await imageDeclaring('webp', 8192, 8192))).resolves.toMatchObject({ contentType: 'image/webp' });
  });

  it('a direct upload, even when the JPEG frame header lies past the first bytes read: deleted', async () => {
    const bomb = withMetadataBefore(await imageDeclaring('jpeg', 9000, 9000), 100_000);
    const upload = await createDirectUpload(storage, 'acc_1', NOW);
    storage.simulateDirectUpload(upload.fields.key!, bomb);
    const error = await refusal(completeDirectUpload(deps(), 'acc_1', upload.uploadId));
    expect(error.message).toMatch(/^image: it declares 9000x9000 pixels; at most 8192 pixels per side/);
    expect(storage.objects.size).toBe(0);

    const fine = withMetadataBefore(await imageDeclaring('jpeg', 800, 600), 100_000);
    const second = await createDirectUpload(storage, 'acc_1', NOW);
    storage.simulateDirectUpload(second.fields.key!, fine);
    await expect(completeDirectUpload(deps(), 'acc_1', second.uploadId)).resolves.toMatchObject({ size: fine.length });
  });
});
