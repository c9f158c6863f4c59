/** The FileIO layer: everything, including the local file system (imports `node:` modules). */
export * from "./file-io.js";
export * from "./memory-file-io.js";
export * from "./http-file-io.js";
export * from "./s3-file-io.js";
export { signRequest, type AwsCredentials, type SignInput, type SignedRequest } from "./sigv4.js";
export * from "./local-file-io.js";
export * from "./resolve.js";
