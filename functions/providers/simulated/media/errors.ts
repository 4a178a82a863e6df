/**
 * The renderers' errors, in a module with no native imports: code that only needs to
 * recognise them (the simulated provider) must not load sharp or ffmpeg to do so.
 */

/** A supplied image could not be decoded: the request's input is at fault, not the renderer. */
export class MediaInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MediaInputError';
  }
}

/** ffmpeg failed or exited non-zero; the message carries the end of its stderr. */
export class EncoderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EncoderError';
  }
}
