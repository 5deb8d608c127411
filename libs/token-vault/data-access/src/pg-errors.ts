/** Postgres errors by SQLSTATE (23505 unique_violation, 23503 foreign_key_violation, ...). */
export function isPgError(err: unknown, sqlState: string, constraint?: string): boolean {
  const e = (err as { driverError?: unknown })?.driverError ?? err;
  const { code, constraint: violated } = (e ?? {}) as { code?: unknown; constraint?: unknown };
  return code === sqlState && (constraint === undefined || violated === constraint);
}
