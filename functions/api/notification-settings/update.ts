import { apiHandler } from '#shared/http/handler.ts';
import { updateSettings } from '#shared/domain/notifications/service.ts';
import { NotificationSettingsSchema } from '#shared/domain/notifications/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(NotificationSettingsSchema),
  rootKey: 'notification_settings',
  run: ({ account, actor, body }) => updateSettings(account, actor, body),
});
