import { observed } from '#shared/aws/observe.ts';
import { config, mailConfig } from '#shared/config.ts';

// The ActionMailbox relay's basic-auth password (docs/mail.md#ways-in): RAILS_INBOUND_EMAIL_PASSWORD when set (`npm
// start`, tests), else deployed the text of the Secrets Manager secret RAILS_INBOUND_EMAIL_PASSWORD_SECRET_ARN names,
// read through Powertools Parameters and kept per container for CACHE_SECONDS (a changed password reaches every
// container within that). Loaded on first use, so no other function pays for the SDK client.

const CACHE_SECONDS = 300;

type SecretsProvider = import('@aws-lambda-powertools/parameters/secrets').SecretsProvider;
let provider: { region: string; value: Promise<SecretsProvider> } | undefined;

async function secretText(arn: string, region: string): Promise<string | undefined> {
  if (provider?.region !== region) {
    provider = {
      region,
      value: Promise.all([import('@aws-lambda-powertools/parameters/secrets'), import('@aws-sdk/client-secrets-manager')]).then(
        ([{ SecretsProvider }, { SecretsManagerClient }]) =>
          new SecretsProvider({ awsSdkV3Client: observed(new SecretsManagerClient({ region })) }),
      ),
    };
  }
  const value = await (await provider.value).get(arn, { maxAge: CACHE_SECONDS });
  return typeof value === 'string' && value ? value : undefined;
}

/** The relay password, or undefined when none is configured (the route then answers 404). */
export async function relayPassword(): Promise<string | undefined> {
  const { relayPassword, relayPasswordSecretArn } = mailConfig().inboundMail;
  if (relayPassword) return relayPassword;
  if (relayPasswordSecretArn) return secretText(relayPasswordSecretArn, config().region);
  return undefined;
}
