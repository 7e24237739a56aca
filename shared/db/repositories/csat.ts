import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import { del, put, transact } from '../transact.ts';
import { getItem, queryItems, queryPrefix, record, timeRangeQuery } from './common.ts';
import type { CsatResponseRecord, CsatSurveyRecord } from '#shared/model/csat.ts';

// Access patterns of CSAT (docs/data-model.md#keys-and-access-patterns, AP320-AP325): a conversation's one survey,
// in its partition and found by the conversation's uuid through gsi1, and the account's answered surveys by the
// time of their first answer.

/** AP320: the survey of a conversation, by its uuid (the survey page and its public API). */
export async function findSurveyByUuid(uuid: string): Promise<CsatSurveyRecord | undefined> {
  const [item] = await queryPrefix({ gsi1pk: keys.csatSurveyIndex(uuid).gsi1pk }, 'CSAT', { limit: 1 });
  return record<CsatSurveyRecord>(item);
}

/** AP321: the survey of a conversation, by the conversation (the pipeline). */
export const getSurvey = (accountId: number, displayId: number) => getItem<CsatSurveyRecord>(keys.csatSurvey(accountId, displayId), true);

/**
 * AP322: claims a conversation's survey (conditional: one per conversation). The survey as stored when another
 * claim came first, else undefined.
 */
export async function claimSurvey(s: CsatSurveyRecord): Promise<CsatSurveyRecord | undefined> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.csatSurvey(s.account_id, s.conversation_id), ...keys.csatSurveyIndex(s.uuid), type: 'csat_survey', ...s },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return undefined;
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
    return (await getSurvey(s.account_id, s.conversation_id)) ?? s;
  }
}

/** AP323: the survey's message, once written. */
export async function setSurveyMessage(accountId: number, displayId: number, messageId: number): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.csatSurvey(accountId, displayId),
      UpdateExpression: 'SET message_id = :m',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':m': messageId },
    }),
  );
}

/**
 * AP324: an answer as the reports counted it: the survey's memory of it and the response item, together (the
 * response item is put whole: a later answer replaces it under the same key).
 */
export async function saveResponse(survey: CsatSurveyRecord, r: CsatResponseRecord, series: string[]): Promise<void> {
  const key = keys.csatSurvey(survey.account_id, survey.conversation_id);
  await transact([
    {
      item: put(
        {
          ...key,
          ...keys.csatSurveyIndex(survey.uuid),
          type: 'csat_survey',
          ...survey,
          rating: r.rating,
          feedback_message: r.feedback_message,
          responded_at: r.created_at,
          team_id: r.team_id,
          series,
        },
        { condition: { expression: 'attribute_exists(pk)' } },
      ),
    },
    { item: put({ ...keys.csatResponse(r.account_id, r.created_at, r.message_id), type: 'csat_response', ...r }) },
  ]);
}

/** AP326: a deleted conversation's survey and its response item go (idempotent). */
export async function removeSurvey(survey: CsatSurveyRecord): Promise<void> {
  await transact([
    { item: del(keys.csatSurvey(survey.account_id, survey.conversation_id)) },
    ...(survey.responded_at != null && survey.message_id != null
      ? [{ item: del(keys.csatResponse(survey.account_id, survey.responded_at, survey.message_id)) }]
      : []),
  ]);
}

export interface ResponseFilter {
  /** Unix seconds, inclusive; either may be absent. */
  since?: number;
  until?: number;
  agentIds?: number[];
  inboxId?: number;
  teamId?: number;
  rating?: number;
}

/**
 * AP325: an account's responses first answered in [since, until], oldest first, those matching the filter (a
 * DynamoDB filter: the reads are the range's responses, never the account's conversations); `limit` stops early.
 */
export async function listResponses(accountId: number, f: ResponseFilter, limit?: number): Promise<CsatResponseRecord[]> {
  const query = timeRangeQuery({
    pk: ['pk', keys.csatResponsesPartition(accountId)],
    sk: ['sk', keys.csatResponseSk],
    since: f.since,
    until: f.until,
    equal: { inbox_id: f.inboxId, team_id: f.teamId, rating: f.rating },
    oneOf: { assigned_agent_id: f.agentIds },
  });
  const items = await queryItems(query, limit);
  return items.map((i) => record<CsatResponseRecord>(i)!);
}
