/**
 * The Node.js major version of the Lambda runtime. Infra derives the runtime and the esbuild
 * target from it; the setup installs this major for the tests and the local runtime (the `node`
 * devDependency), and a test fails when the Node that runs the tests has another major.
 */
export const LAMBDA_NODE_MAJOR = 22;

/** Lambda's identifier of that runtime. */
export const LAMBDA_RUNTIME_NAME = `nodejs${LAMBDA_NODE_MAJOR}.x`;
