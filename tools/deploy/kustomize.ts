import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
export const ROOT = path.resolve(__dirname, '../..');
export const K8S = path.join(ROOT, 'k8s');

/** Every kustomization an operator applies: each environment's apps and its migration Job. */
export const OVERLAYS = ['overlays/dev', 'overlays/dev/migrate', 'overlays/production', 'overlays/production/migrate'] as const;

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/**
 * kustomize as kubectl embeds it (`kubectl kustomize`, kustomize v5): the binary in $KUBECTL
 * (tools/scripts/ensure-kubectl.sh provides one), or `kubectl` on the PATH. Rendering is
 * offline: the overlays reference only local files.
 */
export function kubectl(): string {
  return process.env.KUBECTL || 'kubectl';
}

export function kustomizeVersion(): string {
  return execFileSync(kubectl(), ['version', '--client'], { encoding: 'utf8' });
}

export function render(overlay: string): K8sObject[] {
  const output = execFileSync(kubectl(), ['kustomize', path.join(K8S, overlay)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return parseAllDocuments(output).map((doc) => {
    if (doc.errors.length > 0) {
      throw new Error(`${overlay}: ${doc.errors[0].message}`);
    }
    return doc.toJS() as K8sObject;
  });
}
