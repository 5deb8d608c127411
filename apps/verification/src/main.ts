import 'reflect-metadata';
import { VERIFICATION_SCHEMA } from '@gateway/verification/data-access';
import { VerificationConfig, VerificationModule } from '@gateway/verification/feature';
import { answerEntryPointLine, runServiceMain, stdio } from '@gateway/platform';

const USAGE = {
  command: 'node dist/apps/verification/src/main.js',
  what: "verification: card verification against the acquirer (VERIFY, and the token vault's ACQUIRER verification), answering the edge's and the vault's requests over NATS.",
  settings: 'docs/operations/configuration.md (Every app, Apps with a database, verification)',
  commands: [{ name: 'migrate', rest: '', what: "apply the service's database migrations, then exit (the migration Job)", readsItsLine: false }],
};

// `--help`, or an argument it does not take, is answered before anything is read or connected.
const answered = answerEntryPointLine(process.argv.slice(2), USAGE, stdio);
if (answered === undefined) {
  void runServiceMain({
    name: 'verification',
    configClass: VerificationConfig,
    schema: VERIFICATION_SCHEMA,
    featureModule: (config) => VerificationModule.forRoot(config),
  });
} else {
  process.exitCode = answered;
}
