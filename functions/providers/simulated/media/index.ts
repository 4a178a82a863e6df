/** Real media files for the simulated provider. */
export { renderVideo, type RenderVideoOptions, type RenderedFile } from './render-video';
export { renderImage, type ImageFormat, type RenderImageOptions } from './render-image';
export { EncoderError, MediaInputError } from './errors';
