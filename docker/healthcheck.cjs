// The image's HEALTHCHECK: the app's liveness endpoint on its own port. Liveness, not
// readiness: a dependency outage must not make the runtime restart a healthy process.
// Kubernetes ignores HEALTHCHECK and uses the Deployment's probes on the same endpoints.
// An edge that serves TLS itself (TLS_CERT_FILE) answers on that port over HTTPS only. Its
// certificate names the public host, not 127.0.0.1, and this check reads only the status of its
// own process's listener: the certificate is not verified (as the kubelet's HTTPS probes do).
const { request } = require(process.env.TLS_CERT_FILE ? 'node:https' : 'node:http');

const port = process.env.HTTP_PORT || '8080';
const check = request(
  { host: '127.0.0.1', port, path: '/health/live', timeout: 2500, rejectUnauthorized: false },
  (response) => {
    response.resume();
    process.exit(response.statusCode >= 200 && response.statusCode < 300 ? 0 : 1);
  },
);
check.on('timeout', () => check.destroy(new Error('timed out')));
check.on('error', () => process.exit(1));
check.end();
