import { installRuntimeGlobals } from '#bin/lambda-streaming.cjs';

// The Lambda runtime's `awslambda` global, which a streaming handler's module uses as it loads:
// tests require handlers as the runtime does.
installRuntimeGlobals();
