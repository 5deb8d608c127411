import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
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
  return renderDirectory(overlay, path.join(K8S, overlay));
}

/**
 * An overlay with patches of an operator's own on top (a guide's), as their overlay would render:
 * a kustomization in a folder of its own whose one resource is the overlay (by a relative path:
 * kustomize refuses an absolute one).
 */
export function renderPatched(overlay: string, patches: object[]): K8sObject[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'kustomize-'));
  try {
    const kustomization = { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: [path.relative(dir, path.join(K8S, overlay))], patches };
    writeFileSync(path.join(dir, 'kustomization.yaml'), stringify(kustomization));
    return renderDirectory(overlay, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function renderDirectory(overlay: string, dir: string): K8sObject[] {
  const output = execFileSync(kubectl(), ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return parseAllDocuments(output).map((doc) => {
    if (doc.errors.length > 0) {
      throw new Error(`${overlay}: ${doc.errors[0].message}`);
    }
    return doc.toJS() as K8sObject;
  });
}
