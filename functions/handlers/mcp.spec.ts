import { defineFunction } from '#spec/function-spec';
import { mergeNeeds, RATE_LIMITED } from '#spec/needs';
import { spec as cancelImage } from './cancel-image.spec';
import { spec as cancelVideo } from './cancel-video.spec';
import { spec as generateImage } from './generate-image.spec';
import { spec as generate } from './generate.spec';
import { spec as getCredits } from './get-credits.spec';
import { spec as getImage } from './get-image.spec';
import { spec as getVideo } from './get-video.spec';
import { spec as listImages } from './list-images.spec';
import { spec as listVideos } from './list-videos.spec';
import { spec as quote } from './quote.spec';
import { spec as upload } from './upload.spec';

export const spec = defineFunction({
  name: 'mcp',
  purpose: 'serves the Model Context Protocol: the task, upload and credit tools',
  area: 'tasks',
  // Streamable HTTP, stateless: GET (no event stream) and DELETE (no session) are the gateway's 405 (CONTRACT.md, "MCP transport").
  trigger: { kind: 'http', method: 'POST', path: '/mcp', streaming: true, refusedMethods: ['GET', 'DELETE'] },
  // Connecting needs `read`; each tool checks the capability of the route it mirrors.
  access: { callers: ['apiKey', 'session'], capability: 'read' },
  // The tools call the use cases of these routes: what those functions may do, together.
  needs: mergeNeeds([
    generate.needs,
    listVideos.needs,
    getVideo.needs,
    cancelVideo.needs,
    generateImage.needs,
    listImages.needs,
    getImage.needs,
    cancelImage.needs,
    upload.needs,
    quote.needs,
    getCredits.needs,
    { table: { actions: RATE_LIMITED } },
  ]),
  // The SDK's server imports Ajv (about 140 KB with its formats) for elicitation answers, which
  // our server never validates (functions/mcp/server.ts passes its own validator).
  bundle: { leaveOut: ['ajv', 'ajv-formats'] },
});
