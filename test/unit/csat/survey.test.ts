import { describe, expect, it } from 'vitest';
import { answerOf, CSAT_PROMPT, surveyContent, surveyPrompt } from '#shared/domain/csat/survey.ts';
import { inbox, message } from '../support/records.ts';

// The survey's words and its answer (docs/csat.md): the link only outside the web widget, the inbox's own message,
// and what counts as an answer.

const LINK = 'https://app.example.com/survey/responses/3f1c9f7e-0000-4000-8000-000000000000';

describe('CSAT survey text', () => {
  it("a web widget gets the prompt alone: the inbox's message, else Chatwoot's", () => {
    expect(surveyContent(inbox(), LINK)).toBe(CSAT_PROMPT);
    expect(surveyContent(inbox({ csat_config: { message: 'How did we do?' } }), LINK)).toBe('How did we do?');
  });

  it('every other channel carries the survey page link', () => {
    const api = inbox({ channel_type: 'Channel::Api' });
    expect(surveyContent(api, LINK)).toBe(`Please rate this conversation, ${LINK}`);
    expect(surveyContent({ ...api, csat_config: { message: 'Rate us' } }, LINK)).toBe(`Rate us ${LINK}`);
    // A blank message is no message.
    expect(surveyContent({ ...api, csat_config: { message: '  ' } }, LINK)).toBe(`Please rate this conversation, ${LINK}`);
  });

  it('the page shows the prompt without the link', () => {
    expect(surveyPrompt(inbox({ channel_type: 'Channel::Email', csat_config: { message: 'Rate us' } }))).toBe('Rate us');
    expect(surveyPrompt(undefined)).toBe(CSAT_PROMPT);
  });
});

describe('CSAT answer', () => {
  const csat = (submitted_values: unknown) =>
    message({ content_type: 'input_csat', message_type: 3, content_attributes: { submitted_values } });

  it('is a rating from 1 to 5, with feedback when given', () => {
    expect(answerOf(csat({ csat_survey_response: { rating: 4, feedback_message: 'ok' } }))).toEqual({ rating: 4, feedback_message: 'ok' });
    expect(answerOf(csat({ csat_survey_response: { rating: 1, feedback_message: '' } }))).toEqual({ rating: 1, feedback_message: null });
  });

  it('is nothing without a valid rating', () => {
    expect(answerOf(csat(undefined))).toBeUndefined();
    expect(answerOf(csat([{ value: 'x' }]))).toBeUndefined();
    expect(answerOf(csat({ csat_survey_response: { feedback_message: 'only words' } }))).toBeUndefined();
    expect(answerOf(csat({ csat_survey_response: { rating: 6 } }))).toBeUndefined();
    expect(answerOf(csat({ csat_survey_response: { rating: '5' } }))).toBeUndefined();
  });
});
