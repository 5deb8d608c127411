// The image's HEALTHCHECK: the app's liveness endpoint on its own port. Liveness, not
// readiness: a dependency outage must not make the runtime restart a healthy process.
// Kubernetes ignores HEALTHCHECK and uses the Deployment's probes on the same endpoints.
const port = process.env.HTTP_PORT || '8080';
fetch(`http://127.0.0.1:${port}/health/live`, { signal: AbortSignal.timeout(2500) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1),
);
