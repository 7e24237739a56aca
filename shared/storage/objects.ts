import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '#shared/config.ts';
import { observed } from '#shared/aws/observe.ts';

// Uploaded files (avatars, attachments) in the avatar bucket. Clients reach them only through signed
// links (./file-urls.ts), whose route answers a redirect to a short-lived presigned GET (signedObjectUrl, below).

let client: S3Client | undefined;

const s3 = () =>
  (client ??= observed(
    new S3Client({
      region: config().region,
      ...(config().s3Endpoint ? { endpoint: config().s3Endpoint, forcePathStyle: true } : {}),
    }),
  ));

function bucket(): string {
  const name = config().avatarBucket;
  if (!name) throw new Error('AVATAR_BUCKET is not configured');
  return name;
}

export async function putObject(key: string, data: Buffer, contentType: string): Promise<void> {
  await s3().send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: data, ContentType: contentType }));
}

/** An object's bytes (a stored raw mail, an attachment to mail). */
export const getObject = (key: string): Promise<Buffer> => getObjectFrom(bucket(), key);

/** An object of another bucket (the mail SES received into the mail bucket). */
export async function getObjectFrom(bucketName: string, key: string): Promise<Buffer> {
  const out = await s3().send(new GetObjectCommand({ Bucket: bucketName, Key: key }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

export const signedObjectUrl = (key: string, seconds = 300): Promise<string> =>
  getSignedUrl(s3(), new GetObjectCommand({ Bucket: bucket(), Key: key }), { expiresIn: seconds });

/**
 * A short-lived URL a browser PUTs one file to (direct uploads). The content type, the length and (when
 * the client gave one) the MD5 checksum are part of the signature, so storage takes exactly the file
 * that was announced and no larger one.
 */
export const signedUploadUrl = (key: string, file: { contentType: string; length: number; md5?: string }, seconds = 600): Promise<string> =>
  getSignedUrl(
    s3(),
    new PutObjectCommand({
      Bucket: bucket(),
      Key: key,
      ContentType: file.contentType,
      ContentLength: file.length,
      ...(file.md5 ? { ContentMD5: file.md5 } : {}),
    }),
    { expiresIn: seconds, signableHeaders: new Set(['content-type', 'content-length', ...(file.md5 ? ['content-md5'] : [])]) },
  );

/** The size of an object, or undefined when there is none (without reading it). */
export async function objectSize(key: string): Promise<number | undefined> {
  try {
    const out = await s3().send(new HeadObjectCommand({ Bucket: bucket(), Key: key }));
    return out.ContentLength ?? 0;
  } catch (err) {
    const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
    if (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return undefined;
    throw err;
  }
}

/** Deletes objects by key (a missing one is no error: S3 answers a delete of nothing with success). */
export async function deleteObjects(list: string[]): Promise<void> {
  for (let i = 0; i < list.length; i += 10) {
    await Promise.all(list.slice(i, i + 10).map((Key) => s3().send(new DeleteObjectCommand({ Bucket: bucket(), Key }))));
  }
}

/** Deletes up to `max` objects under a prefix; true when none is left. */
export async function deleteObjectsUnder(prefix: string, max: number): Promise<boolean> {
  const page = await s3().send(new ListObjectsV2Command({ Bucket: bucket(), Prefix: prefix, MaxKeys: Math.max(1, Math.min(max, 1000)) }));
  const found = (page.Contents ?? []).map((o) => o.Key!).filter(Boolean);
  await deleteObjects(found);
  return !page.IsTruncated && found.length < Math.max(1, Math.min(max, 1000));
}
