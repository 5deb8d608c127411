/**
 * The Node flags every app runs with on Kubernetes (k8s/base/apps/<app>/deployment.yaml; the
 * manifest tests hold the two equal), so the distributed profile is measured as deployed.
 */
export const DEPLOYED_NODE_OPTIONS = '--enable-source-maps --max-old-space-size=128';
