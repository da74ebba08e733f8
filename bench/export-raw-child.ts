/**
 * The exports suite's baseline (bench/suites/exports.ts) in a process of its own, as the worker
 * runs in one: the same Query pages, the same CSV (csv-stringify), the same multipart upload,
 * nothing else. The environment names the local stack; argv gives the organization. Prints
 * `{ rows, seconds }` as JSON.
 */
async function rawLoop(organizationId: string): Promise<{ rows: number; seconds: number }> {
  const [{ documentClient }, { QueryCommand }, { s3Client }, s3, { stringify }, { inventoryListOf }, { TABLES, BUCKET_ENV_VAR }] = await Promise.all([
    import('../lib/platform/aws/dynamodb-client.ts'),
    import('@aws-sdk/lib-dynamodb'),
    import('../lib/platform/aws/s3-client.ts'),
    import('@aws-sdk/client-s3'),
    import('csv-stringify/sync'),
    import('../lib/inventory/store/entities.ts'),
    import('../lib/platform/storage/tables.ts'),
  ]);
  const bucket = process.env[BUCKET_ENV_VAR] ?? '';
  const key = `exports/bench/raw-${organizationId}.csv`;
  const started = performance.now();
  const { UploadId } = await s3Client.send(new s3.CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
  const parts: { PartNumber: number; ETag: string }[] = [];
  let buffer: string[] = [];
  let size = 0;
  let rows = 0;
  const flush = async () => {
    const body = Buffer.from(buffer.join(''));
    const { ETag } = await s3Client.send(new s3.UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: parts.length + 1, Body: body }));
    parts.push({ PartNumber: parts.length + 1, ETag: ETag ?? '' });
    buffer = [];
    size = 0;
  };
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: process.env[TABLES.inventory.envVar],
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': inventoryListOf(organizationId, 'movement') },
        ScanIndexForward: false,
        Limit: 500,
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    const records = (page.Items ?? []).map((item) => item.record as Record<string, string | number | null>);
    const text = stringify(
      records.map((record) => [
        record.id,
        record.type,
        record.itemId,
        record.sku,
        record.fromLocationId,
        record.toLocationId,
        record.quantity,
        record.lot,
        record.reference,
        record.occurredAt,
      ]),
      { record_delimiter: '\r\n' },
    );
    buffer.push(text);
    size += text.length;
    rows += records.length;
    if (size >= 8 * 1024 * 1024) await flush();
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  await flush();
  await s3Client.send(new s3.CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }));
  return { rows, seconds: (performance.now() - started) / 1000 };
}

const [organizationId = ''] = process.argv.slice(2);
console.log(JSON.stringify(await rawLoop(organizationId)));
