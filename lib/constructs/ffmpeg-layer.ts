import { existsSync } from 'node:fs';
import path from 'node:path';
import { Architecture, Code, LayerVersion } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { FUNCTION_RUNTIME } from './api-function';

/**
 * A Lambda layer holding a static ffmpeg for the copy worker's thumbnails (docs/operations.md,
 * "ffmpeg on Lambda"). The binary is @ffmpeg-installer/linux-x64's (a static build, no shared
 * libraries needed), taken from node_modules at synth: no download, so `cdk synth` works offline.
 * A layer's files land under /opt, so the binary is /opt/ffmpeg. It is an x86_64 build: the
 * functions that use the layer run on x86_64.
 */
export const FFMPEG_LAYER_ARCHITECTURE = Architecture.X86_64;
export const FFMPEG_LAYER_BINARY = '/opt/ffmpeg';
export const FFMPEG_PACKAGE = '@ffmpeg-installer/linux-x64';

/** The folder of the linux-x64 ffmpeg package; throws with the command that installs it elsewhere (macOS, arm64 Linux). */
export function ffmpegPackageDir(): string {
  let dir: string | undefined;
  try {
    dir = path.dirname(require.resolve(`${FFMPEG_PACKAGE}/package.json`));
  } catch {
    dir = undefined;
  }
  if (!dir || !existsSync(path.join(dir, 'ffmpeg'))) {
    throw new Error(
      `The copy worker's ffmpeg layer needs ${FFMPEG_PACKAGE} in node_modules (npm installs it only on x86_64 Linux). Elsewhere run: npm install --no-save --force ${FFMPEG_PACKAGE}@4.1.0`,
    );
  }
  return dir;
}

export class FfmpegLayer extends Construct {
  readonly layer: LayerVersion;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.layer = new LayerVersion(this, 'Layer', {
      code: Code.fromAsset(ffmpegPackageDir(), { exclude: ['*', '!ffmpeg'] }),
      compatibleArchitectures: [FFMPEG_LAYER_ARCHITECTURE],
      compatibleRuntimes: [FUNCTION_RUNTIME],
      description: `vidgen: static ffmpeg (${FFMPEG_PACKAGE}) for video thumbnails, at ${FFMPEG_LAYER_BINARY}`,
      license: 'LGPL-2.1',
    });
  }
}
