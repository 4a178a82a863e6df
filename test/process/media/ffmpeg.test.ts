import { EncoderError, startFfmpeg } from '#providers/simulated/media/ffmpeg';

const RAW_INPUT = ['-f', 'rawvideo', '-pix_fmt', 'gray', '-video_size', '16x16', '-framerate', '1', '-i', 'pipe:0'];

describe('startFfmpeg', () => {
  it('streams frames to a working ffmpeg', async () => {
    const sink = startFfmpeg([...RAW_INPUT, '-f', 'null', '-']);
    await sink.write(Buffer.alloc(256));
    await sink.write(Buffer.alloc(256));
    await expect(sink.finish()).resolves.toBeUndefined();
  });

  it('reports ffmpeg failing, with its own explanation, on write and on finish', async () => {
    const sink = startFfmpeg([...RAW_INPUT, '-c:v', 'no-such-encoder', '-f', 'null', '-']);
    // A large frame cannot fit in the pipe buffer, so the write sees ffmpeg exit.
    await expect(sink.write(Buffer.alloc(16 * 1024 * 1024))).rejects.toThrow(EncoderError);
    await expect(sink.finish()).rejects.toThrow(/no-such-encoder/);
  });
});
