import { TRANSACTION_TYPES } from '@gateway/contracts';
import { Client } from 'pg';
import { CARD_RESERVATION_SQL, isCardReservationRow } from './card-reservations';

/**
 * The reservation rule's two forms agree (card-reservations.ts): the sweep's SQL condition, as
 * Postgres evaluates it, selects exactly the rows the reads' row check calls card reservations,
 * over every combination of the values either form looks at (NULL funding included).
 */
describe('CARD_RESERVATION_SQL', () => {
  let database: Client;

  beforeAll(async () => {
    database = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await database.connect();
  });

  afterAll(async () => {
    await database?.end();
  });

  it('selects exactly the rows isCardReservationRow accepts', async () => {
    const rows = [];
    for (const result of ['PENDING', 'SUCCESS', 'FAILURE', 'UNKNOWN'] as const) {
      for (const gatewayCode of ['PENDING', 'SUBMITTED', 'APPROVED']) {
        for (const type of TRANSACTION_TYPES) {
          for (const fundingType of ['CARD', 'PROVIDER_A', null]) {
            rows.push({ result, gatewayCode, type, fundingType });
          }
        }
      }
    }
    const { rows: selected } = await database.query<{ i: number }>(
      `SELECT i FROM jsonb_to_recordset($1::jsonb) AS t(i int, result text, gateway_code text, type text, funding_type text)
        WHERE ${CARD_RESERVATION_SQL} ORDER BY i`,
      [JSON.stringify(rows.map((row, i) => ({ i, result: row.result, gateway_code: row.gatewayCode, type: row.type, funding_type: row.fundingType })))],
    );
    const accepted = rows.flatMap((row, i) => (isCardReservationRow(row) ? [i] : []));
    expect(selected.map(({ i }) => i)).toEqual(accepted);
    // Not agreeing on nothing: every type but a refund request has its card reservation.
    expect(accepted).toHaveLength(TRANSACTION_TYPES.length - 1);
  });
});
