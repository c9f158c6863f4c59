/**
 * The SigV4 signer against AWS's published examples: the S3 "Authenticating Requests (AWS Signature
 * Version 4)" header-based examples (examplebucket, 20130524) and the sigv4 test suite's get-vanilla.
 */
import { describe, expect, it } from "vitest";
import { canonicalQuery, sha256Hex, signRequest, uriEncode } from "../../src/fs/sigv4.js";

const s3Example = {
  credentials: { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
  region: "us-east-1",
  service: "s3",
  date: new Date(Date.UTC(2013, 4, 24, 0, 0, 0)),
  addContentSha256: true,
};
const EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

describe("AWS Signature V4", () => {
  it("S3 example: GET Object with a Range header", async () => {
    const s = await signRequest({
      ...s3Example,
      method: "GET",
      path: "/test.txt",
      headers: { Host: "examplebucket.s3.amazonaws.com", Range: "bytes=0-9" },
      payloadHash: EMPTY,
    });
    expect(s.stringToSign.split("\n")[3]).toBe("7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
    expect(s.signature).toBe("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    expect(s.headers.authorization).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, " +
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, " +
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
    );
  });

  it("S3 example: PUT Object (key with $, body hashed)", async () => {
    const body = "Welcome to Amazon S3.";
    const payloadHash = await sha256Hex(body);
    expect(payloadHash).toBe("44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
    const s = await signRequest({
      ...s3Example,
      method: "PUT",
      path: `/${uriEncode("test$file.text", true)}`,
      headers: {
        Host: "examplebucket.s3.amazonaws.com",
        Date: "Fri, 24 May 2013 00:00:00 GMT",
        "x-amz-storage-class": "REDUCED_REDUNDANCY",
      },
      payloadHash,
    });
    expect(s.canonicalRequest.split("\n")[1]).toBe("/test%24file.text");
    expect(s.stringToSign.split("\n")[3]).toBe("9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d");
    expect(s.signature).toBe("98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
  });

  it("S3 example: GET Bucket Lifecycle (query parameter without a value)", async () => {
    const s = await signRequest({
      ...s3Example,
      method: "GET",
      path: "/",
      query: [["lifecycle", ""]],
      headers: { Host: "examplebucket.s3.amazonaws.com" },
      payloadHash: EMPTY,
    });
    expect(s.signature).toBe("fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
  });

  it("S3 example: GET Bucket (List Objects) with parameters sorted canonically", async () => {
    const s = await signRequest({
      ...s3Example,
      method: "GET",
      path: "/",
      query: [["prefix", "J"], ["max-keys", "2"]],
      headers: { Host: "examplebucket.s3.amazonaws.com" },
      payloadHash: EMPTY,
    });
    expect(s.canonicalRequest.split("\n")[2]).toBe("max-keys=2&prefix=J");
    expect(s.signature).toBe("34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
  });

  it("test suite: get-vanilla (generic service, no content-sha256 header)", async () => {
    const s = await signRequest({
      method: "GET",
      path: "/",
      headers: { Host: "example.amazonaws.com" },
      payloadHash: EMPTY,
      region: "us-east-1",
      service: "service",
      credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" },
      date: new Date(Date.UTC(2015, 7, 30, 12, 36, 0)),
    });
    expect(s.signature).toBe("5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  });

  it("session tokens are sent and signed", async () => {
    const s = await signRequest({
      ...s3Example,
      credentials: { ...s3Example.credentials, sessionToken: "TOKEN/with+chars" },
      method: "HEAD",
      path: "/k",
      headers: { host: "h" },
      payloadHash: EMPTY,
    });
    expect(s.headers["x-amz-security-token"]).toBe("TOKEN/with+chars");
    expect(s.headers.authorization).toContain("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,");
  });

  it("encodes like RFC 3986 (unreserved kept, UTF-8 bytes upper-case hex)", () => {
    expect(uriEncode("a b/c=d&é~._-")).toBe("a%20b%2Fc%3Dd%26%C3%A9~._-");
    expect(uriEncode("db.db/t/dt=a b", true)).toBe("db.db/t/dt%3Da%20b");
    expect(canonicalQuery([["list-type", "2"], ["delimiter", "/"], ["prefix", "a b/"]])).toBe(
      "delimiter=%2F&list-type=2&prefix=a%20b%2F",
    );
  });
});
