import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { showSurvey } from '#shared/domain/csat/service.ts';
import { ServiceError } from '#shared/errors.ts';
import { log } from '#shared/log.ts';
import { enforceLimit, limitScope } from './limits.ts';
import { errorResult, statusOf } from './errors.ts';
import { jsonResult } from './response.ts';
import { escapeHtml, wantsJson } from './html.ts';

// `GET /survey/responses/{conversation_uuid}` (Chatwoot's Survey::ResponsesController, docs/csat.md): the page a
// contact opens from the survey's link. Rendered here with the survey's prompt and, once answered, its thanks; a
// small script (nonce'd: no other script runs) sends the rating and feedback to
// `PATCH /public/api/v1/csat_survey/{uuid}` and shows the thanks. No file to load: one document, a few kilobytes.

type Result = APIGatewayProxyStructuredResultV2;

const EMOJI = ['😞', '😑', '😐', '😀', '😍'];

function page(title: string, body: string, nonce: string, status = 200): Result {
  return {
    statusCode: status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src https: data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
    },
    body:
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
      `<title>${escapeHtml(title)}</title><style nonce="${nonce}">` +
      'body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f6fb;color:#1f2d3d}' +
      'main{max-width:480px;margin:40px auto;background:#fff;border-radius:12px;padding:24px;box-shadow:0 1px 4px #0002}' +
      'h1{font-size:1.15rem;margin:0 0 16px}.ratings{display:flex;gap:8px;border:0;padding:0;margin:0 0 16px}' +
      '.ratings label{font-size:2rem;cursor:pointer;opacity:.6}.ratings input{position:absolute;opacity:0}' +
      '.ratings input:checked+span,.ratings label:hover{opacity:1}.ratings input:checked+span{outline:2px solid #1f93ff;border-radius:8px}' +
      'textarea{width:100%;box-sizing:border-box;min-height:90px;font:inherit;padding:8px;border:1px solid #c8d0dc;border-radius:8px}' +
      'button{margin-top:12px;background:#1f93ff;color:#fff;border:0;border-radius:8px;padding:10px 18px;font:inherit;cursor:pointer}' +
      '.error{color:#c0392b}.inbox{color:#6b7a90;margin:0 0 8px}' +
      `</style></head><body><main>${body}</main></body></html>`,
  };
}

function surveyBody(uuid: string, s: Awaited<ReturnType<typeof showSurvey>>, nonce: string): string {
  const answered = s.csat_survey_response;
  const thanks = `<p id="thanks" role="status"${answered ? '' : ' hidden'}>Thank you for submitting the rating</p>`;
  const inbox = s.inbox_name ? `<p class="inbox">${escapeHtml(s.inbox_name)}</p>` : '';
  if (answered)
    return `${inbox}<h1>${escapeHtml(s.content)}</h1>${thanks}<p>Your rating: ${EMOJI[answered.rating - 1]} (${answered.rating}/5)</p>`;
  const options = EMOJI.map(
    (e, i) => `<label><input type="radio" name="rating" value="${i + 1}" aria-label="Rating ${i + 1}"><span>${e}</span></label>`,
  ).join('');
  const endpoint = JSON.stringify(`/public/api/v1/csat_survey/${uuid}`).replace(/</g, '\\u003c');
  return (
    `${inbox}<h1>${escapeHtml(s.content)}</h1>` +
    `<form id="survey"><fieldset class="ratings"><legend hidden>Rating</legend>${options}</fieldset>` +
    `<label for="feedback">Tell us more (optional)</label><textarea id="feedback" name="feedback" maxlength="10000"></textarea>` +
    `<button type="submit">Submit</button><p id="error" class="error" role="alert"></p></form>${thanks}` +
    `<script nonce="${nonce}">(function(){var f=document.getElementById('survey'),e=document.getElementById('error');` +
    `f.addEventListener('change',function(){e.textContent=''});f.addEventListener('submit',function(ev){ev.preventDefault();var r=f.querySelector('input[name=rating]:checked');` +
    `if(!r){e.textContent='Choose a rating first.';return}e.textContent='';` +
    `fetch(${endpoint},{method:'PATCH',headers:{'content-type':'application/json'},body:JSON.stringify({message:{submitted_values:{csat_survey_response:{rating:Number(r.value),feedback_message:f.feedback.value||null}}}})})` +
    `.then(function(res){return res.json().then(function(b){if(!res.ok)throw new Error((b.errors&&b.errors[0]&&b.errors[0].message)||b.description||'Something went wrong');` +
    `f.hidden=true;document.getElementById('thanks').hidden=false})}).catch(function(x){e.textContent=x.message})})})();</script>`
  );
}

/**
 * The survey page: 404 (a small page, or the JSON error body for a client asking for JSON) for a uuid no survey has,
 * 403 for a suspended account's, 429 past the limit.
 */
export async function surveyPage(event: APIGatewayProxyEventV2): Promise<Result> {
  const nonce = randomBytes(16).toString('base64');
  const uuid = event.pathParameters?.conversation_uuid ?? '';
  try {
    await enforceLimit('address', limitScope.address(event.requestContext?.http?.sourceIp ?? 'unknown'));
    const survey = await showSurvey(uuid);
    return page('Rate your conversation', surveyBody(uuid, survey, nonce), nonce);
  } catch (err) {
    // A client that asks for JSON (and not HTML) gets the error body every other route answers.
    const json = wantsJson(event.headers?.accept);
    if (err instanceof ServiceError) {
      if (json) return errorResult(err);
      const status = statusOf(err);
      const text = status === 429 ? 'Too many requests; try again shortly.' : 'This survey is not available.';
      const out = page('Survey', `<h1>${text}</h1>`, nonce, status);
      if (err.retryAfter !== undefined) out.headers!['retry-after'] = String(err.retryAfter);
      return out;
    }
    log.error('survey page failed', { error: err });
    if (json)
      return jsonResult(500, {
        description: 'Internal server error',
        errors: [{ field: '', message: 'Something went wrong', code: 'internal' }],
      });
    return page('Survey', '<h1>Something went wrong.</h1>', nonce, 500);
  }
}
