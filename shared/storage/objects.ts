import type { S3Client } from '@aws-sdk/client-s3';
import { config } from '#shared/config.ts';
import { observed } from '#shared/aws/observe.ts';

// Uploaded files (avatars, attachments) in the avatar bucket. Clients reach them only through signed
// links (./file-urls.ts), whose route answers a redirect to a short-lived presigned GET (signedObjectUrl, below).

// The S3 client and the presigner are loaded on first use (dynamic imports, chunks of their own): many functions
// import this module for a branch most of their calls never take (an attachment, an avatar), and the S3 client is
// the largest part of their bundle otherwise.
const sdk = () => import('@aws-sdk/client-s3');

let client: Promise<S3Client> | undefined;

const s3 = () =>
  (client ??= sdk().then(({ S3Client }) =>
    observed(
      new S3Client({
        region: config().region,
        ...(config().s3Endpoint ? { endpoint: config().s3Endpoint, forcePathStyle: true } : {}),
      }),
    ),
  ));

const presign: typeof import('@aws-sdk/s3-request-presigner').getSignedUrl = async (...args) =>
  (await import('@aws-sdk/s3-request-presigner')).getSignedUrl(...args);

function bucket(): string {
  const name = config().avatarBucket;
  if (!name) throw new Error('AVATAR_BUCKET is not configured');
  return name;
}

export async function putObject(key: string, data: Buffer, contentType: string): Promise<void> {
  const { PutObjectCommand } = await sdk();
  await (await s3()).send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: data, ContentType: contentType }));
}

/** An object's bytes (a stored raw mail, an attachment to mail). */
export const getObject = (key: string): Promise<Buffer> => getObjectFrom(bucket(), key);

/** An object of another bucket (the mail SES received into the mail bucket). */
export async function getObjectFrom(bucketName: string, key: string): Promise<Buffer> {
  const { GetObjectCommand } = await sdk();
  const out = await (await s3()).send(new GetObjectCommand({ Bucket: bucketName, Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

export async function signedObjectUrl(key: string, seconds = 300): Promise<string> {
  const { GetObjectCommand } = await sdk();
  return presign(await s3(), new GetObjectCommand({ Bucket: bucket(), Key: key }), { expiresIn: seconds });
}

/**
 * A short-lived URL a browser PUTs one file to (direct uploads). The content type, the length and (when
 * the client gave one) the MD5 checksum are part of the signature, so storage takes exactly the file
 * that was announced and no larger one.
 */
export async function signedUploadUrl(
  key: string,
  file: { contentType: string; length: number; md5?: string },
  seconds = 600,
): Promise<string> {
  const { PutObjectCommand } = await sdk();
  return presign(
    await s3(),
    new PutObjectCommand({
      Bucket: bucket(),
      Key: key,
      ContentType: file.contentType,
      ContentLength: file.length,
      ...(file.md5 ? { ContentMD5: file.md5 } : {}),
    }),
    { expiresIn: seconds, signableHeaders: new Set(['content-type', 'content-length', ...(file.md5 ? ['content-md5'] : [])]) },
  );
}

/** The size of an object, or undefined when there is none (without reading it). */
export async function objectSize(key: string): Promise<number | undefined> {
  try {
    const { HeadObjectCommand } = await sdk();
    const out = await (await s3()).send(new HeadObjectCommand({ Bucket: bucket(), Key: key }));
    return out.ContentLength ?? 0;
  } catch (err) {
    const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
    if (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return undefined;
    throw err;
  }
}

/** Deletes objects by key (a missing one is no error: S3 answers a delete of nothing with success). */
export async function deleteObjects(list: string[]): Promise<void> {
  const [{ DeleteObjectCommand }, client] = await Promise.all([sdk(), s3()]);
  for (let i = 0; i < list.length; i += 10) {
    await Promise.all(list.slice(i, i + 10).map((Key) => client.send(new DeleteObjectCommand({ Bucket: bucket(), Key }))));
  }
}

/** Deletes up to `max` objects under a prefix; true when none is left. */
export async function deleteObjectsUnder(prefix: string, max: number): Promise<boolean> {
  const { ListObjectsV2Command } = await sdk();
  const page = await (await s3()).send(
    new ListObjectsV2Command({ Bucket: bucket(), Prefix: prefix, MaxKeys: Math.max(1, Math.min(max, 1000)) }),
  );
  const found = (page.Contents ?? []).map((o) => o.Key!).filter(Boolean);
  await deleteObjects(found);
  return !page.IsTruncated && found.length < Math.max(1, Math.min(max, 1000));
}
