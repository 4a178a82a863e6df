import {
  IMAGE_ASPECT_RATIOS,
  IMAGE_RESOLUTIONS,
  imageDimensions,
  VIDEO_ASPECT_RATIOS,
  VIDEO_RESOLUTIONS,
  videoDimensions,
  type ImageAspectRatio,
  type ImageResolution,
  type VideoAspectRatio,
  type VideoResolution,
} from '#domain/catalogue/dimensions';

/** Every combination, written out so a change to the rounding shows up as a diff here. */
const VIDEO: Record<VideoResolution, Record<VideoAspectRatio, [number, number]>> = {
  '480p': { '16:9': [854, 480], '9:16': [480, 854], '1:1': [480, 480], '4:3': [640, 480], '3:4': [480, 640], '21:9': [1120, 480] },
  '720p': { '16:9': [1280, 720], '9:16': [720, 1280], '1:1': [720, 720], '4:3': [960, 720], '3:4': [720, 960], '21:9': [1680, 720] },
  '1080p': { '16:9': [1920, 1080], '9:16': [1080, 1920], '1:1': [1080, 1080], '4:3': [1440, 1080], '3:4': [1080, 1440], '21:9': [2520, 1080] },
};

const IMAGE: Record<ImageResolution, Record<ImageAspectRatio, [number, number]>> = {
  '1k': {
    '1:1': [1024, 1024], '2:3': [683, 1024], '3:2': [1024, 683], '3:4': [768, 1024], '4:3': [1024, 768],
    '4:5': [819, 1024], '5:4': [1024, 819], '9:16': [576, 1024], '16:9': [1024, 576], '21:9': [1024, 439],
  },
  '2k': {
    '1:1': [2048, 2048], '2:3': [1365, 2048], '3:2': [2048, 1365], '3:4': [1536, 2048], '4:3': [2048, 1536],
    '4:5': [1638, 2048], '5:4': [2048, 1638], '9:16': [1152, 2048], '16:9': [2048, 1152], '21:9': [2048, 878],
  },
  '4k': {
    '1:1': [4096, 4096], '2:3': [2731, 4096], '3:2': [4096, 2731], '3:4': [3072, 4096], '4:3': [4096, 3072],
    '4:5': [3277, 4096], '5:4': [4096, 3277], '9:16': [2304, 4096], '16:9': [4096, 2304], '21:9': [4096, 1755],
  },
};

describe('videoDimensions', () => {
  const cases = VIDEO_RESOLUTIONS.flatMap((r) => VIDEO_ASPECT_RATIOS.map((a) => [r, a] as const));

  it.each(cases)('%s %s', (resolution, aspectRatio) => {
    const [width, height] = VIDEO[resolution][aspectRatio];
    const size = videoDimensions(resolution, aspectRatio);

    expect(size).toEqual({ width, height });
    expect(size.width % 2).toBe(0);
    expect(size.height % 2).toBe(0);
    expect(Math.min(size.width, size.height)).toBe(Number.parseInt(resolution, 10));
  });

  it('covers every combination', () => {
    expect(cases).toHaveLength(18);
  });
});

describe('imageDimensions', () => {
  const cases = IMAGE_RESOLUTIONS.flatMap((r) => IMAGE_ASPECT_RATIOS.map((a) => [r, a] as const));

  it.each(cases)('%s %s', (resolution, aspectRatio) => {
    const [width, height] = IMAGE[resolution][aspectRatio];
    const size = imageDimensions(resolution, aspectRatio);

    expect(size).toEqual({ width, height });
    expect(Math.max(size.width, size.height)).toBe({ '1k': 1024, '2k': 2048, '4k': 4096 }[resolution]);
  });

  it('covers every combination', () => {
    expect(cases).toHaveLength(30);
  });
});
