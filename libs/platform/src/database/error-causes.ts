/** The error and what it wraps: TypeORM's QueryFailedError.driverError, an error's cause. */
export function causesOf(err: unknown): { code?: unknown; message?: unknown }[] {
  const causes: { code?: unknown; message?: unknown }[] = [];
  for (let error = err, depth = 0; typeof error === 'object' && error !== null && depth < 3; depth++) {
    causes.push(error as { code?: unknown; message?: unknown });
    const { driverError, cause } = error as { driverError?: unknown; cause?: unknown };
    error = driverError ?? cause;
  }
  return causes;
}
