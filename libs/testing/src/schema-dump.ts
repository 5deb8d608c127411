import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A schema's full pg_dump (DDL and data) as text: what a stolen backup would hold. */
export async function dumpSchema(databaseUrl: string, schema: string): Promise<string> {
  const { stdout } = await run('pg_dump', ['--dbname', databaseUrl, '--schema', schema, '--no-owner'], {
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

export interface Needle {
  what: string;
  text: string;
  /**
   * Short values (a security code): look for them only as a whole column value or a JSON
   * string, not as a substring of ids, times or other numbers.
   */
  wholeField?: boolean;
  /**
   * Look in the text only, not in bytea values: a short value's hex (6 characters for a 3-digit
   * security code) turns up by chance in enough random ciphertext and fingerprint bytes.
   */
  textOnly?: boolean;
}

/**
 * Where a dump shows a value in clear: as text, or inside a bytea column (pg_dump writes bytea
 * as hex, so clear bytes would appear as the hex of the value). Returns one finding per needle
 * found, naming it by `what` only.
 */
export function findInDump(dump: string, needles: Needle[]): string[] {
  const lower = dump.toLowerCase();
  return needles.flatMap(({ what, text, wholeField, textOnly }) => {
    const hex = Buffer.from(text, 'utf8').toString('hex');
    const findings: string[] = [];
    if (wholeField ? asWholeField(text).test(dump) : dump.includes(text)) {
      findings.push(`${what} in clear text`);
    }
    if (!textOnly && lower.includes(hex)) {
      findings.push(`${what} in clear inside a bytea value`);
    }
    return findings;
  });
}

function asWholeField(text: string): RegExp {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // A COPY column (tab-separated) or a JSON string value.
  return new RegExp(`(^|\t)${escaped}(\t|$)|"${escaped}"`, 'm');
}
